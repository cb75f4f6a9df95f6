// What bench/checkout.mjs and bench/mixed.mjs share: everything around the server under test that a whole
// checkout needs. The shop's webhook receiver (in this process; each signature checked), the Daraja simulator
// (apps/daraja-sim, its callback after a fixed delay) and the https relay its callbacks go through (a
// production start refuses plain-http callback URLs; bench/https-relay.mjs), these two processes of their own
// on the load's core, the shop (an API key and a webhook endpoint, made through Mteja), one checkout (intent
// by API key → stkpush → webhook received) and the database check at the end.
import { createHmac, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { createServer as createNetServer } from "node:net";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { selfSignedCertificate } from "../scripts/chaos/relay.mjs";
import { prepare, startServer } from "./login-common.mjs";

// The simulator's sandbox account (packages/simulated-daraja's defaults).
const daraja = {
  consumerKey: "mteja-sim-key",
  consumerSecret: "mteja-sim-secret",
  shortcode: "174379",
  passkey: "bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919",
};

/**
 * A scratch database, the receiver, the relay and the simulator (callbacks after `delayMs`), and the shop
 * set up through a first Mteja server. `checkout` is what bench/login-server.mjs's `--checkout` takes.
 */
export async function startCheckoutHarness({ delayMs }) {
  const db = await prepare();
  const receiver = await startReceiver();
  const certificateDir = mkdtempSync(path.join(tmpdir(), "mteja-bench-tls-"));
  const certificate = await selfSignedCertificate(certificateDir);
  const serverPort = await freePort();
  const relay = await startRelay(certificate, serverPort);
  const simPort = await freePort();
  const simulator = await startSimulator(simPort, certificate.certPath, delayMs);
  const checkout = {
    port: serverPort,
    callbackBase: relay.url,
    adminKey: randomBytes(24).toString("hex"),
    callbackSecret: randomBytes(32).toString("hex"),
    daraja: { ...daraja, baseUrl: `http://127.0.0.1:${simPort}` },
    // Mteja's WEBHOOK_TENANT_CONCURRENCY: one shop's deliveries in flight at most.
    concurrency: 4,
  };
  const close = async () => {
    simulator.kill("SIGTERM");
    await receiver.close();
    await relay.close();
    rmSync(certificateDir, { recursive: true, force: true });
    await db.drop();
  };
  try {
    const shop = await setUpShop({ db, receiver, checkout });
    checkout.webhookSecret = shop.webhookSecret;
    receiver.secret = shop.webhookSecret;
    return { db, receiver, checkout, shop, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The shop: an API key (admin API) and a webhook endpoint for payment.succeeded at the receiver, made through Mteja. */
async function setUpShop({ db, receiver, checkout }) {
  const mteja = await startServer({ target: "mteja", database: db.database, key: db.key, checkout });
  try {
    const admin = { authorization: `Bearer ${checkout.adminKey}`, "content-type": "application/json" };
    const keyAnswer = await fetch(`${mteja.url}/api/v1/admin/tenants/default/api-keys`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ name: "bench" }),
    });
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

/**
 * One checkout: an intent created with the shop's API key, stkpush with it as the customer, then the
 * webhook. Answers the milliseconds from stkpush sent to webhook received; throws on any failure.
 */
export async function oneCheckout({ url, token, apiKey, receiver, reference }) {
  const intent = await post(url, "/api/v1/payment-intents", apiKey, { amount: 10, reference });
  const sent = performance.now();
  const paid = receiver.waitFor(intent.id);
  await post(url, "/api/momo/stkpush", token, { phone: "254712345678", intent_id: intent.id }).catch((error) => {
    paid.cancel();
    throw error;
  });
  await paid.arrived;
  return performance.now() - sent;
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
      // Its awaiter may still be sending the stkpush when it rejects: that is its failure, not an unhandled one.
      promise.catch(() => {});
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
async function startSimulator(port, certPath, delayMs) {
  const main = fileURLToPath(new URL("../apps/daraja-sim/dist/main.js", import.meta.url));
  const child = spawn("taskset", ["-c", process.env.LOAD_CORE ?? "1", process.execPath, main], {
    env: {
      ...process.env,
      SIM_PORT: String(port),
      SIM_HOST: "127.0.0.1",
      SIM_CALLBACK_DELAY_MS: String(delayMs),
      LOG_LEVEL: "error",
      NODE_EXTRA_CA_CERTS: certPath,
    },
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
export async function checkDatabase({ db, receiver }) {
  const client = new pg.Client({ connectionString: String(db.database) });
  await client.connect();
  try {
    // One pass over payments grouped by intent: a subquery per intent is planned from the statistics of the
    // empty tables the run started with, and over a long run's intents it turns quadratic.
    const { rows } = await client.query(
      `WITH paid AS (SELECT intent_id, count(*) FILTER (WHERE status = 'SUCCESS') AS successes
                       FROM payments WHERE intent_id IS NOT NULL GROUP BY intent_id)
       SELECT count(*)::int AS intents,
              count(*) FILTER (WHERE i.status = 'succeeded')::int AS succeeded,
              count(*) FILTER (WHERE paid.successes <> 1)::int AS not_paid_once,
              (SELECT count(*)::int FROM webhook_deliveries WHERE status <> 'delivered') AS undelivered
         FROM paid JOIN payment_intents i ON i.id = paid.intent_id`,
    );
    const found = rows[0];
    const problems = found.intents - found.succeeded + found.not_paid_once + found.undelivered + receiver.badSignatures;
    if (problems > 0) {
      // What a trace needs before the scratch database is dropped: each intent that did not end paid once,
      // its payments, and the callbacks stored for them (none: Daraja's callback never reached the server).
      const { rows: unpaid } = await client.query(
        `WITH paid AS (SELECT intent_id, count(*) FILTER (WHERE status = 'SUCCESS') AS successes
                         FROM payments WHERE intent_id IS NOT NULL GROUP BY intent_id)
         SELECT i.id, i.status, p.id AS payment_id, p.status AS payment_status, p.checkout_request_id, p.last_error,
                p.created_at, (SELECT count(*)::int FROM momo_callbacks c WHERE c.correlation_id = p.checkout_request_id) AS callbacks
           FROM paid JOIN payment_intents i ON i.id = paid.intent_id JOIN payments p ON p.intent_id = i.id
          WHERE i.status <> 'succeeded' OR paid.successes <> 1
          ORDER BY p.created_at LIMIT 10`,
      );
      for (const row of unpaid) console.warn(`not paid once: ${JSON.stringify(row)}`);
    }
    return { ...found, badSignatures: receiver.badSignatures, problems };
  } finally {
    await client.end();
  }
}

/** bench/https-relay.mjs on core 1 (with the load), in front of the server under test. */
async function startRelay({ certPath, keyPath }, targetPort) {
  const main = fileURLToPath(new URL("./https-relay.mjs", import.meta.url));
  const child = spawn("taskset", ["-c", process.env.LOAD_CORE ?? "1", process.execPath, main, "--cert", certPath, "--key", keyPath, "--target-port", String(targetPort)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise((resolve, reject) => {
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
      const found = /listening (\S+)/.exec(output)?.[1];
      if (found) resolve(found);
    });
    child.once("exit", (code) => reject(new Error(`the https relay exited with ${code} before listening`)));
  });
  return {
    url,
    close: () =>
      new Promise((resolve) => {
        child.once("exit", resolve);
        child.kill("SIGTERM");
      }),
  };
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
