#!/usr/bin/env node
// One server of a benchmark, in its own process so that the load generator and the other servers do not
// share its event loop, heap or timers (bench/login-common.mjs starts it alone, pinned to one core):
//   mteja         Mteja's production server (PASSWORD_HASHER from --hasher; M-Pesa on with --callback-secret)
//   hand-written  Fastify + pg + argon2 verify (same argon2id parameters) + jsonwebtoken ES256: POST /api/v1/auth/login
//                 (find the user, verify, insert the session and its refresh token, sign) and GET /api/v1/auth/me
//   callback-hand-written, callback-statements, callback-optimistic
//                 the STK callback routes of bench/hand-written-callback.mjs (with --callback-secret)
//   webhooks-hand-written
//                 the hand-written delivery loop of bench/hand-written-checkout.mjs alone (--deliveries <json>:
//                 each endpoint's secret and the in-flight caps), for bench/webhooks.mjs
// With --checkout <json> (bench/checkout.mjs: port, Daraja simulator, secrets), mteja is set up for a whole
// checkout against the simulator and hand-written gains bench/hand-written-checkout.mjs's routes.
// --settings <json>: more of Mteja's settings (bench/webhooks.mjs: the admin API, private webhook URLs).
// Prints "listening <url>" once it accepts requests; stops on SIGTERM.
//   node bench/login-server.mjs --target <target> [--hasher processes|threads] [--callback-secret <hex>] --database <url> --key <hex>
import { buildServer, createServices, readSettings } from "@mteja/api";
import { openDatabase } from "@mteja/db";
import argon2 from "argon2";
import Fastify from "fastify";
import jwt from "jsonwebtoken";
import { createHash, generateKeyPairSync, randomBytes, randomUUID } from "node:crypto";
import { createHistogram, monitorEventLoopDelay } from "node:perf_hooks";
import pg from "pg";
import { startHandWrittenCallbacks, startMtejaStatementsByHand, startOptimisticByHand } from "./hand-written-callback.mjs";
import { addHandWrittenCheckout, startDeliveryLoop } from "./hand-written-checkout.mjs";
import { handWrittenMe } from "./hand-written-me.mjs";
import { momoEnv } from "./targets.mjs";
import { delaySummary } from "./loop-delay.mjs";
import { inTransaction } from "./pg-transaction.mjs";
import { args } from "./args.mjs";

const silent = { info() {}, warn() {}, error() {}, debug() {} };
const settings = readSettings({
  NODE_ENV: "production",
  LOG_LEVEL: "silent",
  DATABASE_URL: args.database,
  DATA_ENCRYPTION_KEY: args.key,
  RATE_LIMITS: "off",
  DATA_DIR: "/tmp/mteja-bench",
  PASSWORD_HASHER: args.hasher ?? "processes",
  ...(process.env.PASSWORD_HASH_CONCURRENCY ? { PASSWORD_HASH_CONCURRENCY: process.env.PASSWORD_HASH_CONCURRENCY } : {}),
  ...(process.env.PASSWORD_HASH_MAX_WAIT_MS ? { PASSWORD_HASH_MAX_WAIT_MS: process.env.PASSWORD_HASH_MAX_WAIT_MS } : {}),
  ...(process.env.PASSWORD_HASH_NICENESS ? { PASSWORD_HASH_NICENESS: process.env.PASSWORD_HASH_NICENESS } : {}),
  ...(process.env.ACCESS_TOKEN_CACHE_SIZE ? { ACCESS_TOKEN_CACHE_SIZE: process.env.ACCESS_TOKEN_CACHE_SIZE } : {}),
  ...(args["callback-secret"] ? momoEnv(args["callback-secret"]) : {}),
  ...(args.checkout ? checkoutEnv(JSON.parse(args.checkout)) : {}),
  ...(args.settings ? JSON.parse(args.settings) : {}),
});
const checkout = args.checkout ? JSON.parse(args.checkout) : undefined;

/** Mteja's settings for a whole checkout: M-Pesa against the simulator, callbacks to this server, the admin API on. */
function checkoutEnv(c) {
  return {
    ADMIN_API_KEY: c.adminKey,
    WEBHOOK_ALLOW_PRIVATE_URLS: "true",
    MOMO_BASE_URL: c.daraja.baseUrl,
    MOMO_CONSUMER_KEY: c.daraja.consumerKey,
    MOMO_CONSUMER_SECRET: c.daraja.consumerSecret,
    MOMO_SHORTCODE: c.daraja.shortcode,
    MOMO_PASSKEY: c.daraja.passkey,
    MOMO_CALLBACK_URL: `${c.callbackBase}/api/momo/callback/stkpush`,
    MOMO_CALLBACK_SECRET: c.callbackSecret,
  };
}
const callbackRoutes = { "callback-hand-written": startHandWrittenCallbacks, "callback-statements": startMtejaStatementsByHand, "callback-optimistic": startOptimisticByHand };

// Unknown emails cost a verify too, as in Mteja (same argon2id parameters: OWASP's first option).
const argon2Options = { type: argon2.argon2id, memoryCost: 19456, timeCost: 2, parallelism: 1 };
const decoy = await argon2.hash("decoy-password-for-unknown-users", argon2Options);
const stops = [];
let url;
let app;
if (args.target === "mteja") {
  const db = await openDatabase({ url: settings.DATABASE_URL, poolMax: settings.DATABASE_POOL_MAX });
  const services = await createServices(settings, silent, { db });
  app = await buildServer({ settings, deps: services.deps, logger: false });
  stops.push(() => app.close(), () => services.close(), () => db.close());
  url = await listen(app);
} else if (args.target === "webhooks-hand-written") {
  const { secrets, concurrency, tenantConcurrency } = JSON.parse(args.deliveries);
  const pool = new pg.Pool({ connectionString: settings.DATABASE_URL, max: settings.DATABASE_POOL_MAX });
  const loop = startDeliveryLoop(pool, { secretOf: (endpointId) => secrets[endpointId], concurrency, tenantConcurrency });
  const app = Fastify({ logger: false });
  app.get("/healthz", async () => ({ ok: true }));
  stops.push(() => app.close(), () => loop.stop(), () => pool.end());
  url = await listen(app);
} else if (callbackRoutes[args.target]) {
  const pool = new pg.Pool({ connectionString: settings.DATABASE_URL, max: settings.DATABASE_POOL_MAX });
  const route = await callbackRoutes[args.target](pool, args["callback-secret"]);
  stops.push(() => route.close(), () => pool.end());
  url = route.base;
} else {
  const app = handWritten();
  stops.unshift(() => app.close());
  url = await listen(app);
}
console.log(`listening ${url}`);

async function listen(app) {
  await app.listen({ port: checkout?.port ?? 0, host: "127.0.0.1" });
  return `http://127.0.0.1:${app.server.address().port}`;
}
// bench/memory.mjs starts the server with --expose-gc and asks for a full collection before it reads the
// resident set size: what is still resident then is what requests left behind, not where the collector's
// schedule happened to be.
process.on("SIGUSR2", () => {
  globalThis.gc?.();
  console.log("collected");
});
// With BENCH_WATCH=1 (bench/mixed.mjs), SIGHUP prints what the server saw since the last reading: its
// event loop's delay and each route's p99 from Node's request event to the answer's last byte. That tells
// a server that falls behind from a load generator that does. Off otherwise: it is work per request.
// Each route's times go into a histogram of fixed size, not a list: over a million requests a list held
// megabytes the RSS check would have counted against the server.
if (process.env.BENCH_WATCH === "1") watchServer(app?.server);

function watchServer(server) {
  const loopDelay = monitorEventLoopDelay({ resolution: 1 });
  loopDelay.enable();
  const times = new Map();
  server?.prependListener("request", (request, response) => {
    const start = performance.now();
    const route = request.url.split("?")[0].replace(/\/[a-z]+_[A-Za-z0-9]+/g, "/:id");
    response.once("finish", () => {
      if (!times.has(route)) times.set(route, createHistogram());
      times.get(route).record(Math.max(1, Math.round((performance.now() - start) * 1000)));
    });
  });
  process.on("SIGHUP", () => {
    const routes = Object.fromEntries([...times].map(([route, micros]) => [route, { count: micros.count, p99: Number((micros.percentile(99) / 1000).toFixed(2)) }]));
    times.clear();
    console.log(`watched ${JSON.stringify({ loopDelay: delaySummary(loopDelay), routes })}`);
    loopDelay.reset();
  });
}
process.once("SIGTERM", async () => {
  for (const stop of stops) await stop();
  process.exit(0);
});

function handWritten() {
  const pool = new pg.Pool({ connectionString: settings.DATABASE_URL, max: settings.DATABASE_POOL_MAX });
  stops.push(() => pool.end());
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const day = 24 * 3600 * 1000;
  const server = Fastify({ logger: false });
  server.post("/api/v1/auth/login", async (request, reply) => {
    const { email, password } = request.body ?? {};
    if (typeof email !== "string" || typeof password !== "string") return reply.code(422).send({ success: false });
    const tenantId = request.headers["x-tenant-id"];
    const { rows } = await pool.query("SELECT id, name, email, role, password_hash FROM users WHERE tenant_id = $1 AND email = $2", [tenantId, email.toLowerCase()]);
    const user = rows[0];
    const ok = await argon2.verify(user?.password_hash ?? decoy, password).catch(() => false);
    if (!user || !ok) return reply.code(401).send({ success: false });
    const sessionId = randomUUID();
    const refresh = randomBytes(32).toString("base64url");
    await inTransaction(pool, async (client) => {
      await client.query(
        "INSERT INTO sessions (id, tenant_id, user_id, idle_expires_at, absolute_expires_at, user_agent, ip) VALUES ($1, $2, $3, $4, $5, $6, $7)",
        [sessionId, tenantId, user.id, new Date(Date.now() + 30 * day), new Date(Date.now() + 90 * day), request.headers["user-agent"] ?? null, request.ip],
      );
      await client.query("INSERT INTO refresh_tokens (id, session_id, token_hash) VALUES ($1, $2, $3)", [randomUUID(), sessionId, createHash("sha256").update(refresh).digest("hex")]);
    });
    reply.header("set-cookie", `refresh_token=${refresh}; Path=/api/v1/auth; HttpOnly; SameSite=Strict; Max-Age=${(30 * day) / 1000}`);
    const access_token = jwt.sign({ tid: tenantId, sid: sessionId, role: user.role }, privateKey, { algorithm: "ES256", subject: user.id, issuer: "mteja", audience: "mteja", expiresIn: 900, jwtid: randomUUID() });
    return { success: true, data: { access_token, user: { id: user.id, name: user.name, email: user.email, role: user.role } } };
  });
  server.get("/api/v1/auth/me", handWrittenMe(pool, publicKey));
  if (checkout) {
    const { daraja, callbackSecret, webhookSecret, concurrency, callbackBase } = checkout;
    const callbackUrl = `${callbackBase}/api/momo/callback/stkpush?token=${callbackSecret}`;
    const routes = addHandWrittenCheckout(server, pool, { publicKey, daraja: { ...daraja, callbackUrl }, callbackSecret, webhookSecret, concurrency });
    stops.unshift(() => routes.stop());
  }
  return server;
}
