#!/usr/bin/env node
// GET /api/v1/auth/me through Mteja (Fastify → trpc-to-openapi → procedure → Prisma) against a
// minimal Fastify route in the same process doing the same work by hand (verify the same ES256 JWT
// with a KeyObject, read the same row with the same SQL through `pg`). Both run on PostgreSQL,
// one after the other, several rounds, and the ratio of requests/s is printed.
//
//   node bench/me.mjs [--seconds 10] [--connections 50] [--rounds 3]
import { buildServer, createServices, readSettings } from "@mteja/api";
import { createScratchDatabase, openDatabase } from "@mteja/db";
import autocannon from "autocannon";
import Fastify from "fastify";
import jwt from "jsonwebtoken";
import { createPublicKey, randomBytes } from "node:crypto";
import { writeFileSync, mkdirSync } from "node:fs";
import pg from "pg";

const args = Object.fromEntries(
  process.argv.slice(2).reduce((pairs, arg, i, all) => (arg.startsWith("--") ? [...pairs, [arg.slice(2), all[i + 1]]] : pairs), []),
);
const seconds = Number(args.seconds ?? 10);
const connections = Number(args.connections ?? 50);
const rounds = Number(args.rounds ?? 3);
const adminUrl = process.env.MTEJA_BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

const scratch = await createScratchDatabase(adminUrl, "mteja_bench");
const url = new URL(scratch.url);

const silent = { info() {}, warn() {}, error() {}, debug() {} };
const settings = readSettings({
  NODE_ENV: "production",
  LOG_LEVEL: "silent",
  DATABASE_URL: url.toString(),
  DATA_ENCRYPTION_KEY: randomBytes(32).toString("hex"),
  RATE_LIMITS: "off",
  DATA_DIR: "/tmp/mteja-bench",
});
const db = await openDatabase({ url: url.toString(), poolMax: settings.DATABASE_POOL_MAX });
const services = await createServices(settings, silent, { db });
const app = await buildServer({ settings, deps: services.deps, logger: false });
await app.listen({ port: 0, host: "127.0.0.1" });
const mtejaUrl = `http://127.0.0.1:${app.server.address().port}`;

const register = await fetch(`${mtejaUrl}/api/v1/auth/register`, {
  method: "POST",
  headers: { "content-type": "application/json", "x-tenant-id": "default" },
  body: JSON.stringify({ name: "Bench User", email: "bench@example.com", password: "bench-password-123" }),
});
const token = (await register.json()).data.access_token;

// The hand-written route: same key, same claims checks, same SQL, same response body.
const jwks = await (await fetch(`${mtejaUrl}/.well-known/jwks.json`)).json();
const publicKey = createPublicKey({ key: jwks.keys[0], format: "jwk" });
const pool = new pg.Pool({ connectionString: url.toString(), max: settings.DATABASE_POOL_MAX });
const baseline = Fastify({ logger: false });
baseline.get("/api/v1/auth/me", async (request, reply) => {
  if (request.headers["x-tenant-id"] !== "default") return reply.code(400).send({ success: false });
  const bearer = /^Bearer (\S+)$/.exec(request.headers.authorization ?? "")?.[1];
  let claims;
  try {
    claims = jwt.verify(bearer, publicKey, { algorithms: ["ES256"], issuer: "mteja", audience: "mteja" });
  } catch {
    return reply.code(401).send({ success: false });
  }
  const { rows } = await pool.query(
    `SELECT u.id, u.name, u.email, u.phone, u.avatar_url, u.email_verified, u.otp_enabled, u.role, u.preferences
       FROM users u
      WHERE u.id = $1 AND u.tenant_id = $2
        AND EXISTS (SELECT 1 FROM sessions s WHERE s.user_id = u.id AND s.id = $3 AND s.revoked_at IS NULL AND s.absolute_expires_at > now())
      LIMIT 1`,
    [claims.sub, claims.tid, claims.sid],
  );
  const u = rows[0];
  if (!u) return reply.code(401).send({ success: false });
  return { success: true, data: { id: u.id, name: u.name, email: u.email, phone: u.phone, avatar_url: u.avatar_url, email_verified: u.email_verified, otp_enabled: u.otp_enabled, role: u.role, preferences: u.preferences } };
});
await baseline.listen({ port: 0, host: "127.0.0.1" });
const baselineUrl = `http://127.0.0.1:${baseline.server.address().port}`;

const headers = { authorization: `Bearer ${token}`, "x-tenant-id": "default" };
for (const target of [mtejaUrl, baselineUrl]) {
  const res = await fetch(`${target}/api/v1/auth/me`, { headers });
  if (res.status !== 200) throw new Error(`${target} answered ${res.status}`);
}

function load(target) {
  return new Promise((resolve, reject) => {
    autocannon({ url: `${target}/api/v1/auth/me`, headers, connections, duration: seconds }, (error, result) =>
      error ? reject(error) : resolve(result),
    );
  });
}

await load(mtejaUrl); // warm-up (JIT, pools)
await load(baselineUrl);
const results = [];
for (let round = 1; round <= rounds; round++) {
  const m = await load(mtejaUrl);
  const b = await load(baselineUrl);
  if (m.non2xx || b.non2xx || m.errors || b.errors) throw new Error(`errors during the run: ${JSON.stringify({ m: m.non2xx, b: b.non2xx })}`);
  results.push({ round, mteja: m.requests.average, baseline: b.requests.average, mtejaP99: m.latency.p99, baselineP99: b.latency.p99 });
  console.log(`round ${round}: mteja ${m.requests.average.toFixed(0)} req/s (p99 ${m.latency.p99} ms), hand-written ${b.requests.average.toFixed(0)} req/s (p99 ${b.latency.p99} ms), ratio ${(m.requests.average / b.requests.average).toFixed(3)}`);
}
const sum = (key) => results.reduce((s, r) => s + r[key], 0);
const ratio = sum("mteja") / sum("baseline");
console.log(`\nGET /api/v1/auth/me: Mteja/hand-written = ${ratio.toFixed(3)} (${(sum("mteja") / rounds).toFixed(0)} vs ${(sum("baseline") / rounds).toFixed(0)} req/s, ${connections} connections, ${seconds} s x ${rounds} rounds)`);
mkdirSync(new URL("./results/", import.meta.url), { recursive: true });
writeFileSync(new URL("./results/me.json", import.meta.url), JSON.stringify({ at: new Date().toISOString(), seconds, connections, rounds, ratio, results }, null, 2));

await app.close();
await baseline.close();
await pool.end();
await services.close();
await db.close();
await scratch.drop();
