// What the /me benchmarks load: Mteja on a scratch PostgreSQL database (production settings, limits
// off, silent logs) with one registered user, and the hand-written route doing the same work by hand
// (verify the same ES256 JWT with a KeyObject, read the same row with the same SQL through `pg`, send
// the same body), and the load generator: autocannon in a process of its own. Shared by me.mjs
// (throughput ratios) and profile-me.mjs (CPU profile of one target).
import { buildServer, createServices, readSettings } from "@mteja/api";
import { createScratchDatabase, openDatabase } from "@mteja/db";
import Fastify from "fastify";
import { spawn, spawnSync } from "node:child_process";
import { createPublicKey, randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import pg from "pg";
import { handWrittenMe } from "./hand-written-me.mjs";
import { explainHotReads, seedRows, seedUsersAndSessions } from "./seed.mjs";

export const adminUrl = process.env.MTEJA_BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

/** The paths of GET /me on each target (the tRPC query takes no input). */
export const mePaths = { rest: "/api/v1/auth/me", trpc: "/trpc/profile.me", baseline: "/api/v1/auth/me" };

/**
 * `env`: settings on top of the benchmark's (the callback benchmark turns M-Pesa on). With
 * MTEJA_BENCH_SEED_ROWS set, that many more users and sessions are seeded after the bench user (unless `seed` is false).
 */
export async function startMteja({ env = {}, seed = true } = {}) {
  const scratch = await createScratchDatabase(adminUrl, "mteja_bench");
  const url = scratch.url.toString();
  const silent = { info() {}, warn() {}, error() {}, debug() {} };
  const settings = readSettings({
    NODE_ENV: "production",
    LOG_LEVEL: "silent",
    DATABASE_URL: url,
    DATA_ENCRYPTION_KEY: randomBytes(32).toString("hex"),
    RATE_LIMITS: "off",
    DATA_DIR: "/tmp/mteja-bench",
    ...env,
  });
  const db = await openDatabase({ url, poolMax: settings.DATABASE_POOL_MAX });
  const services = await createServices(settings, silent, { db });
  const app = await buildServer({ settings, deps: services.deps, logger: false });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const base = `http://127.0.0.1:${app.server.address().port}`;

  const register = await fetch(`${base}/api/v1/auth/register`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-tenant-id": "default" },
    body: JSON.stringify({ name: "Bench User", email: "bench@example.com", password: "bench-password-123" }),
  });
  const registered = (await register.json()).data;
  const token = registered.access_token;
  const seedSeconds = seed ? await seedUsersAndSessions(url, seedRows) : 0;
  const plans = seed && seedRows ? await explainHotReads(url, "bench@example.com") : undefined;
  if (seed && seedRows) console.log(`seeded ${seedRows} users and sessions in ${seedSeconds.toFixed(0)} s; plans: ${JSON.stringify(plans)}`);
  const headers = { authorization: `Bearer ${token}`, "x-tenant-id": "default" };
  return {
    base,
    url,
    headers,
    userId: registered.user?.id,
    seedSeconds,
    plans,
    settings,
    services,
    poolMax: settings.DATABASE_POOL_MAX,
    async close() {
      await app.close();
      await services.close();
      await db.close();
      await scratch.drop();
    },
  };
}

/** Settings that turn M-Pesa on for the callback benchmarks (Daraja unreachable, the reconciler off). */
export function momoEnv(callbackSecret) {
  return {
    MOMO_BASE_URL: "http://127.0.0.1:9",
    MOMO_CONSUMER_KEY: "bench",
    MOMO_CONSUMER_SECRET: "bench",
    MOMO_SHORTCODE: "174379",
    MOMO_PASSKEY: "bench",
    MOMO_CALLBACK_URL: "https://shop.example.com/api/momo/callback/stkpush",
    MOMO_CALLBACK_SECRET: callbackSecret,
    MOMO_RECONCILE_INTERVAL_MS: "0",
  };
}

/** The hand-written GET /me against Mteja's database and keys. */
export async function startBaseline(mteja) {
  const jwks = await (await fetch(`${mteja.base}/.well-known/jwks.json`)).json();
  const publicKey = createPublicKey({ key: jwks.keys[0], format: "jwk" });
  const pool = new pg.Pool({ connectionString: mteja.url, max: mteja.poolMax });
  const baseline = Fastify({ logger: false });
  baseline.get("/api/v1/auth/me", handWrittenMe(pool, publicKey, { tenantHeader: "default" }));
  await baseline.listen({ port: 0, host: "127.0.0.1" });
  return {
    base: `http://127.0.0.1:${baseline.server.address().port}`,
    async close() {
      await baseline.close();
      await pool.end();
    },
  };
}

const autocannonBin = createRequire(import.meta.url).resolve("autocannon/autocannon.js");
const hasTaskset = spawnSync("taskset", ["-V"]).status === 0;

/**
 * Pins this process (the servers) to one core, so the load generator gets the other; a no-op where
 * `taskset` does not exist. LOAD_CORE / SERVER_CORE pick the cores (default 1 and 0).
 */
export function pinServerCore() {
  if (hasTaskset) spawnSync("taskset", ["-a", "-cp", process.env.SERVER_CORE ?? "0", String(process.pid)], { stdio: "ignore" });
}

/** Loads `url` from a separate autocannon process (on LOAD_CORE when `taskset` exists); its JSON result. */
export function load(url, headers, { connections, seconds, rate }) {
  const headerArgs = Object.entries(headers).flatMap(([name, value]) => ["-H", `${name}=${value}`]);
  const command = [process.execPath, autocannonBin, "--json", "-c", String(connections), "-d", String(seconds), ...(rate ? ["-R", String(rate)] : []), ...headerArgs, url];
  return onLoadCore(command, "autocannon");
}

/** Runs `command` (a load generator printing JSON) on LOAD_CORE when `taskset` exists; its parsed output. */
export function onLoadCore(command, name) {
  const [file, ...rest] = hasTaskset ? ["taskset", "-c", process.env.LOAD_CORE ?? "1", ...command] : command;
  return new Promise((resolve, reject) => {
    const child = spawn(file, rest, { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`${name} exited with ${code}`))));
  });
}
