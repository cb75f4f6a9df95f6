#!/usr/bin/env node
// The whole checkout, end to end: the shop's server creates an intent with its API key, the customer's
// app asks for the M-Pesa prompt (stkpush with the intent), the Daraja simulator (apps/daraja-sim, its
// callback after a fixed delay) calls back, and the `payment.succeeded` webhook reaches the shop's
// receiver. Mteja's production server against a hand-written Fastify + pg server doing the same
// statements and HTTP calls (bench/hand-written-checkout.mjs); each a process of its own started alone
// on core 0; the shoppers, the receiver, the simulator and the https relay its callbacks go through (a
// production start refuses plain-http callback URLs) on core 1. Reported: checkouts completed per
// second on the server's one core, and p99 from stkpush sent to webhook received; medians of the rounds.
// At the end the database is checked: every intent a shopper paid is succeeded, once, with its event delivered.
//
//   node bench/checkout.mjs [--seconds 10] [--shoppers 20] [--rounds 3] [--delay-ms 100]
import { createHmac, randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, request as httpRequest } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { tmpdir } from "node:os";
import path from "node:path";
import { createServer as createNetServer } from "node:net";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { selfSignedCertificate } from "../scripts/chaos/relay.mjs";
import { args, conditions, median, prepare, signIn, startServer, writeResults } from "./login-common.mjs";

const seconds = Number(args.seconds ?? 10);
const shoppers = Number(args.shoppers ?? 20);
const rounds = Number(args.rounds ?? 3);
const delayMs = Number(args["delay-ms"] ?? 100);
// The simulator's sandbox account (packages/simulated-daraja's defaults).
const daraja = {
  consumerKey: "mteja-sim-key",
  consumerSecret: "mteja-sim-secret",
  shortcode: "174379",
  passkey: "bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919",
};

const db = await prepare();
const receiver = await startReceiver();
const certificateDir = mkdtempSync(path.join(tmpdir(), "mteja-bench-tls-"));
const certificate = await selfSignedCertificate(certificateDir);
const serverPort = await freePort();
const relay = await startRelay(certificate, serverPort);
const simPort = await freePort();
const simulator = await startSimulator(simPort, certificate.certPath);
const checkout = {
  port: serverPort,
  callbackBase: relay.url,
  adminKey: randomBytes(24).toString("hex"),
  callbackSecret: randomBytes(32).toString("hex"),
  daraja: { ...daraja, baseUrl: `http://127.0.0.1:${simPort}` },
  // Mteja's WEBHOOK_TENANT_CONCURRENCY: one shop's deliveries in flight at most.
  concurrency: 4,
};
const servers = [
  { name: "hand-written", target: "hand-written" },
  { name: "mteja", target: "mteja" },
];
let counter = 0;
const results = [];
try {
  const shop = await setUpShop();
  checkout.webhookSecret = shop.webhookSecret;
  receiver.secret = shop.webhookSecret;
  for (let round = 1; round <= rounds; round++) {
    for (const t of servers) {
      const server = await startServer({ ...t, database: db.database, key: db.key, checkout });
      try {
        const token = await signIn(server.url);
        await runCheckouts(server.url, token, shop.apiKey, Math.min(3, seconds)); // warm-up: JIT, pools, Daraja token
        const r = await runCheckouts(server.url, token, shop.apiKey, seconds);
        results.push({ round, name: t.name, ...r });
        console.log(`${t.name.padEnd(14)} ${r.perSecond.toFixed(1)} checkouts/s, p99 ${r.p99} ms (stkpush → webhook), ${r.failed} failed`);
      } finally {
        await server.stop();
      }
    }
  }
  const check = await checkDatabase();
  const figure = (name, key) => median(results.filter((r) => r.name === name).map((r) => r[key]));
  const [baseline, mteja] = ["hand-written", "mteja"].map((name) => ({ perSecond: figure(name, "perSecond"), p99: figure(name, "p99") }));
  const ratio = mteja.perSecond / baseline.perSecond;
  const p99Ratio = mteja.p99 / baseline.p99;
  console.log(`\nCheckout (intent → stkpush → callback after ${delayMs} ms → webhook), ${shoppers} shoppers, ${seconds} s x ${rounds} rounds, medians; ${conditions}`);
  console.log(`  hand-written ${baseline.perSecond.toFixed(1)}/s, p99 ${baseline.p99} ms; Mteja ${mteja.perSecond.toFixed(1)}/s (${ratio.toFixed(3)}x), p99 ${mteja.p99} ms (${p99Ratio.toFixed(2)}x)`);
  console.log(`  database: ${JSON.stringify(check)}`);
  const failed = results.reduce((sum, r) => sum + r.failed, 0);
  const checks = [
    { what: "checkout Mteja / hand-written (checkouts/s)", measured: ratio, goal: ">= 0.80", met: ratio >= 0.8 },
    { what: "checkout p99 stkpush → webhook / hand-written", measured: p99Ratio, goal: "<= 1.5", met: p99Ratio <= 1.5 },
    { what: "checkout: paid intents not succeeded once with a delivered event, or failed checkouts", measured: check.problems + failed, goal: "0", met: check.problems + failed === 0 },
  ];
  writeResults("checkout", { seconds, shoppers, rounds, delayMs, baseline, mteja, ratio, p99Ratio, results, database: check, checks });
} finally {
  simulator.kill("SIGTERM");
  await receiver.close();
  await relay.close();
  rmSync(certificateDir, { recursive: true, force: true });
  await db.drop();
}

/** The shop: an API key (admin API) and a webhook endpoint for payment.succeeded at the receiver, made through Mteja. */
async function setUpShop() {
  const mteja = await startServer({ target: "mteja", database: db.database, key: db.key, checkout });
  try {
    const admin = { authorization: `Bearer ${checkout.adminKey}`, "content-type": "application/json" };
    const keyAnswer = await fetch(`${mteja.url}/api/v1/admin/tenants/default/api-keys`, { method: "POST", headers: admin, body: JSON.stringify({ name: "bench" }) });
    if (keyAnswer.status !== 201) throw new Error(`api key: ${keyAnswer.status} ${await keyAnswer.text()}`);
    const apiKey = (await keyAnswer.json()).data.key;
    const endpoint = await fetch(`${mteja.url}/api/v1/webhook-endpoints`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ url: receiver.url, events: ["payment.succeeded"] }),
    });
    if (endpoint.status !== 201) throw new Error(`webhook endpoint: ${endpoint.status} ${await endpoint.text()}`);
    return { apiKey, webhookSecret: (await endpoint.json()).data.secret };
  } finally {
    await mteja.stop();
  }
}

/** `shoppers` checkouts at a time for `runSeconds`, then the ones in flight finish (up to 15 s). */
async function runCheckouts(url, token, apiKey, runSeconds) {
  const latencies = [];
  let failed = 0;
  const end = performance.now() + runSeconds * 1000;
  async function shopper() {
    while (performance.now() < end) {
      const reference = `B${(++counter).toString(36).toUpperCase()}`;
      try {
        const intent = await post(url, "/api/v1/payment-intents", apiKey, { amount: 10, reference });
        const sent = performance.now();
        const paid = receiver.waitFor(intent.id);
        await post(url, "/api/momo/stkpush", token, { phone: "254712345678", intent_id: intent.id }).catch((error) => {
          paid.cancel();
          throw error;
        });
        await paid.arrived;
        // Only checkouts whose webhook arrived within the measured window count towards the rate.
        if (performance.now() <= end) latencies.push(performance.now() - sent);
      } catch (error) {
        failed++;
        if (failed <= 3) console.warn(`checkout failed: ${error.message}`);
      }
    }
  }
  await Promise.all(Array.from({ length: shoppers }, shopper));
  latencies.sort((a, b) => a - b);
  return { perSecond: latencies.length / runSeconds, p99: Math.round(latencies[Math.floor(latencies.length * 0.99)] ?? 0), completed: latencies.length, failed };
}

async function post(url, path, bearer, body) {
  const answer = await fetch(`${url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json", "x-tenant-id": "default" },
    body: JSON.stringify(body),
  });
  const text = await answer.text();
  if (answer.status >= 300) throw new Error(`${path}: ${answer.status} ${text.slice(0, 200)}`);
  return JSON.parse(text).data;
}

/** The shop's webhook receiver: checks each signature and resolves the wait for the intent it pays. */
async function startReceiver() {
  const waiting = new Map();
  const arrived = new Set();
  const self = {
    secret: undefined,
    url: "",
    badSignatures: 0,
    /** `arrived` resolves when the intent's webhook came (rejects after 15 s); `cancel` stops waiting. */
    waitFor(intentId) {
      if (arrived.delete(intentId)) return { arrived: Promise.resolve(), cancel() {} };
      let timer;
      const promise = new Promise((resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`no webhook for ${intentId} in 15 s`)), 15_000);
        waiting.set(intentId, () => {
          clearTimeout(timer);
          resolve();
        });
      });
      return {
        arrived: promise,
        cancel() {
          clearTimeout(timer);
          waiting.delete(intentId);
        },
      };
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
  const server = createServer((request, response) => {
    const chunks = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const [t, v1] = String(request.headers["mteja-signature"] ?? "").split(",").map((part) => part.split("=")[1]);
      const expected = createHmac("sha256", self.secret ?? "").update(`${t}.${body}`).digest("hex");
      if (v1 !== expected) self.badSignatures++;
      const intentId = JSON.parse(body).data?.payment?.intent_id;
      response.writeHead(200).end("ok");
      const resolve = waiting.get(intentId);
      if (resolve) {
        waiting.delete(intentId);
        resolve();
      } else arrived.add(intentId);
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  self.url = `http://127.0.0.1:${server.address().port}/webhooks`;
  return self;
}

/** apps/daraja-sim on core 1 (with the load), callbacks after `delayMs`. */
async function startSimulator(port, certPath) {
  const main = fileURLToPath(new URL("../apps/daraja-sim/dist/main.js", import.meta.url));
  const child = spawn("taskset", ["-c", process.env.LOAD_CORE ?? "1", process.execPath, main], {
    env: { ...process.env, SIM_PORT: String(port), SIM_HOST: "127.0.0.1", SIM_CALLBACK_DELAY_MS: String(delayMs), LOG_LEVEL: "error", NODE_EXTRA_CA_CERTS: certPath },
    stdio: ["ignore", "ignore", "inherit"],
  });
  for (let i = 0; i < 100; i++) {
    const up = await fetch(`http://127.0.0.1:${port}/sim/requests`).then((r) => r.ok, () => false);
    if (up) return child;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill();
  throw new Error("the Daraja simulator did not start");
}

/** Every intent a shopper sent to stkpush: succeeded, one successful payment, its event delivered. */
async function checkDatabase() {
  const client = new pg.Client({ connectionString: String(db.database) });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT count(*)::int AS intents,
              count(*) FILTER (WHERE i.status = 'succeeded')::int AS succeeded,
              count(*) FILTER (WHERE (SELECT count(*) FROM payments p WHERE p.intent_id = i.id AND p.status = 'SUCCESS') <> 1)::int AS not_paid_once,
              (SELECT count(*)::int FROM webhook_deliveries WHERE status <> 'delivered') AS undelivered
         FROM payment_intents i WHERE EXISTS (SELECT 1 FROM payments p WHERE p.intent_id = i.id)`,
    );
    const found = rows[0];
    return { ...found, badSignatures: receiver.badSignatures, problems: found.intents - found.succeeded + found.not_paid_once + found.undelivered + receiver.badSignatures };
  } finally {
    await client.end();
  }
}

/** https in front of the server under test: Daraja's callbacks arrive over TLS, as production requires. */
async function startRelay({ certPath, keyPath }, targetPort) {
  const server = createHttpsServer({ cert: readFileSync(certPath), key: readFileSync(keyPath) }, (incoming, outgoing) => {
    const forwarded = httpRequest(
      { host: "127.0.0.1", port: targetPort, method: incoming.method, path: incoming.url, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on("error", () => outgoing.writeHead(502).end());
    incoming.pipe(forwarded);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `https://127.0.0.1:${server.address().port}`, close: () => new Promise((resolve) => server.close(resolve)) };
}

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}
