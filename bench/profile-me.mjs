#!/usr/bin/env node
// Where does a /me request spend its time? Starts Mteja alone (PostgreSQL), loads it from a separate
// autocannon process, and writes a V8 CPU profile of the server (run with --cpu-prof).
//   node --cpu-prof --cpu-prof-dir=bench/results bench/profile-me.mjs
import { buildServer, createServices, readSettings } from "@mteja/api";
import { createScratchDatabase, openDatabase } from "@mteja/db";
import { randomBytes } from "node:crypto";
import { createRequire } from "node:module";

const adminUrl = process.env.MTEJA_BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const scratch = await createScratchDatabase(adminUrl, "mteja_bench");
const url = new URL(scratch.url);
const silent = { info() {}, warn() {}, error() {}, debug() {} };
const settings = readSettings({ NODE_ENV: "production", LOG_LEVEL: "silent", DATABASE_URL: url.toString(), DATA_ENCRYPTION_KEY: randomBytes(32).toString("hex"), RATE_LIMITS: "off", DATA_DIR: "/tmp/mteja-bench" });
const db = await openDatabase({ url: url.toString() });
const services = await createServices(settings, silent, { db });
const app = await buildServer({ settings, deps: services.deps, logger: false });
await app.listen({ port: 0, host: "127.0.0.1" });
const base = `http://127.0.0.1:${app.server.address().port}`;
const r = await fetch(`${base}/api/v1/auth/register`, { method: "POST", headers: { "content-type": "application/json", "x-tenant-id": "default" }, body: JSON.stringify({ name: "P", email: "p@example.com", password: "bench-password-123" }) });
const token = (await r.json()).data.access_token;
const autocannonBin = createRequire(import.meta.url).resolve("autocannon/autocannon.js");
const { spawn } = await import("node:child_process");
await new Promise((resolve) => {
  const child = spawn(process.execPath, [autocannonBin, "-c", "20", "-d", String(process.env.SECONDS ?? 10), "-H", `authorization=Bearer ${token}`, "-H", "x-tenant-id=default", `${base}/api/v1/auth/me`], { stdio: "inherit" });
  child.on("exit", resolve);
});
await app.close();
await services.close();
await db.close();
await scratch.drop();
