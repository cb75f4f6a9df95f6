#!/usr/bin/env node
// Two Mteja instances behind a balancer on one throw-away PostgreSQL and the machine's Redis, under a
// checkout storm, through an instance killed with SIGKILL, a database restart and a rolling deploy; then
// the checks of docs/deployment.md#the-chaos-run. Loopback only; needs the build (`npm run chaos` builds).
//
//   node scripts/chaos/main.mjs [--gap 10] [--workers 6] [--readers 2] [--node-proxy] [--no-install] [--keep]
//
// The storm runs through: --gap seconds of steady load, the kill, --gap s, the database restart, --gap s,
// the rolling deploy, --gap s (each fault waits until its instance or database is back before the gap).
//
// Exits 0 when every check holds, 1 when one fails, 2 when the run itself could not be made.
import { randomBytes } from "node:crypto";
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { findHaproxy, startHaproxy, startNodeBalancer } from "./balancer.mjs";
import { createChildren, freePort, sleep, until } from "./children.mjs";
import { createCluster } from "./cluster.mjs";
import { startReceiver } from "./receiver.mjs";
import { selfSignedCertificate, startRelay } from "./relay.mjs";
import { checkRun, printReport } from "./report.mjs";
import { call, createGates, createLedger, retrying, runCheckouts, runReaders } from "./storm.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const args = process.argv.slice(2);
const flag = (name) => args.includes(`--${name}`);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(args[at + 1]);
};
const settings = {
  gapS: option("gap", 10),
  workers: option("workers", 6),
  readers: option("readers", 2),
  customersPerWorker: 12,
  redisUrl: process.env.CHAOS_REDIS_URL ?? "redis://127.0.0.1:6379",
};

const started = performance.now();
const clock = () => ((performance.now() - started) / 1000).toFixed(1).padStart(6);
const log = (message) => console.log(`${clock()} s  ${message}`);

const apiMain = path.join(root, "apps", "api", "dist", "main.js");
const simMain = path.join(root, "apps", "daraja-sim", "dist", "main.js");
for (const built of [apiMain, simMain]) {
  if (!existsSync(built)) {
    console.error(`${path.relative(root, built)} is missing: build first (npm run chaos builds)`);
    process.exit(2);
  }
}

const dir = mkdtempSync(path.join(os.tmpdir(), "mteja-chaos-"));
const logDir = path.join(dir, "logs");
mkdirSync(logDir);
const children = createChildren(logDir);
const runTag = randomBytes(2).toString("hex").toUpperCase().slice(0, 3);
const redisPrefix = `mteja-chaos-${runTag.toLowerCase()}`;
let cluster;
const closers = [];

/** Everything the run started is stopped and the throw-away cluster removed, whatever happened. */
let cleaned = false;
async function cleanUp(keepLogs) {
  if (cleaned) return;
  cleaned = true;
  for (const close of closers.reverse()) await Promise.resolve().then(close).catch(() => undefined);
  await children.stopAll();
  if (cluster) {
    await cluster.stop("immediate").catch(() => undefined);
    const pid = cluster.pid();
    if (pid) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  }
  await promisify(execFile)("sh", ["-c", `redis-cli -u "$0" --scan --pattern "$1:*" | xargs -r redis-cli -u "$0" del`, settings.redisUrl, redisPrefix])
    .catch(() => undefined);
  if (flag("keep")) return log(`kept ${dir}`);
  rmSync(path.join(dir, "data"), { recursive: true, force: true });
  if (keepLogs) log(`logs kept in ${logDir}`);
  else rmSync(dir, { recursive: true, force: true });
}
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    log(`${signal}: stopping everything`);
    void cleanUp(true).finally(() => process.exit(130));
  });
}

// ── The run's phases: every request and callback answer is counted under the phase it started in. ──
let phase = "setup";
const phaseOf = () => phase;
/** Windows of faults, for the latency samples taken across one. */
const faults = [];
const ledger = createLedger(phaseOf);

async function main() {
  log(`run ${runTag} in ${dir}`);
  const [pgPort, simPort, lbPort, statsPort, portA, portB] = await Promise.all(Array.from({ length: 6 }, freePort));

  cluster = await createCluster({ dir, port: pgPort });
  log(`throw-away PostgreSQL (${cluster.bin}) on 127.0.0.1:${pgPort}`);

  const certificate = await selfSignedCertificate(dir);
  const gates = createGates();
  const lbUrl = `http://127.0.0.1:${lbPort}`;
  const relay = await startRelay({ ...certificate, target: lbUrl, beforeDelivery: (id) => gates.wait(id), phaseOf });
  closers.push(() => relay.close());
  const receiver = await startReceiver();
  closers.push(() => receiver.close());

  await children.start("daraja-sim", process.execPath, [simMain], {
    env: { SIM_PORT: String(simPort), SIM_HOST: "127.0.0.1", SIM_CALLBACK_DELAY_MS: "500", LOG_LEVEL: "warn", NODE_EXTRA_CA_CERTS: certificate.certPath },
  });
  await until("the Daraja simulator", async () => (await fetch(`http://127.0.0.1:${simPort}/sim/requests`)).ok);
  log(`Daraja simulator (apps/daraja-sim) on 127.0.0.1:${simPort}, callbacks to the relay ${relay.url}`);

  const adminKey = randomBytes(24).toString("hex");
  const shared = {
    NODE_ENV: "production",
    HOST: "127.0.0.1",
    LOG_LEVEL: "info",
    DATABASE_URL: cluster.url,
    DATA_ENCRYPTION_KEY: randomBytes(32).toString("hex"),
    ADMIN_API_KEY: adminKey,
    METRICS_TOKEN: randomBytes(24).toString("hex"),
    REDIS_URL: settings.redisUrl,
    REDIS_KEY_PREFIX: redisPrefix,
    TRUST_PROXY: "127.0.0.1",
    SHUTDOWN_DRAIN_MS: "3000",
    // What Safaricom reaches: the relay (https), which hands every callback on to the balancer.
    PUBLIC_URL: relay.url,
    APP_URL: "https://shop.example.co.ke",
    WEBHOOK_ALLOW_PRIVATE_URLS: "true",
    MOMO_BASE_URL: `http://127.0.0.1:${simPort}`,
    MOMO_CONSUMER_KEY: "mteja-sim-key",
    MOMO_CONSUMER_SECRET: "mteja-sim-secret",
    MOMO_SHORTCODE: "174379",
    MOMO_PASSKEY: "bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919",
    MOMO_CALLBACK_URL: `${relay.url}/api/momo/callback/stkpush`,
    MOMO_CALLBACK_SECRET: randomBytes(32).toString("hex"),
    MOMO_CALLBACK_ALLOWED_IPS: "127.0.0.1",
  };
  const instances = {
    a: { name: "a", port: portA, url: `http://127.0.0.1:${portA}` },
    b: { name: "b", port: portB, url: `http://127.0.0.1:${portB}` },
  };
  const startInstance = async (instance) => {
    instance.handle = await children.start(`instance-${instance.name}`, process.execPath, [apiMain], {
      env: { ...shared, PORT: String(instance.port), DATA_DIR: path.join(dir, `data-${instance.name}`) },
      ready: /"msg":"Mteja is listening"/,
    });
    return instance.handle;
  };
  // One after the other: the first applies the migrations (the second would wait on their lock anyway).
  await startInstance(instances.a);
  await startInstance(instances.b);
  log(`two instances (apps/api/dist/main.js, NODE_ENV=production) on 127.0.0.1:${portA} (a) and :${portB} (b)`);

  const haproxy = flag("node-proxy") ? undefined : findHaproxy({ install: !flag("no-install"), log });
  const servers = [instances.a, instances.b];
  const balancer = haproxy
    ? await startHaproxy({ bin: haproxy, children, dir, port: lbPort, statsPort, servers })
    : await startNodeBalancer({ port: lbPort, servers });
  closers.push(() => balancer.close());
  const upIn = (name) => until(`the balancer to see ${name} up`, async () => (await balancer.states())[name] === "UP", { timeoutMs: 60_000 });
  await upIn("a");
  await upIn("b");
  log(`balancer: ${balancer.kind} on ${lbUrl}, health checks on /readyz`);

  // ── The shop: a tenant, its API key, its webhook endpoint, its customers. ──
  const tenant = `chaos-${runTag.toLowerCase()}`;
  const admin = { authorization: `Bearer ${adminKey}` };
  const must = async (what, answer, status) => {
    const got = await answer;
    if (got.status !== status) throw new Error(`${what}: ${got.status} ${JSON.stringify(got.body)}`);
    return got.body;
  };
  await must("create the tenant", call(ledger, lbUrl, "admin", "POST", "/api/v1/admin/tenants", { headers: admin, body: { id: tenant, name: "Chaos Duka" } }), 200);
  const apiKey = (await must("create an API key", call(ledger, lbUrl, "admin", "POST", `/api/v1/admin/tenants/${tenant}/api-keys`, { headers: admin, body: { name: "chaos" } }), 201)).data.key;
  const endpoint = await must("add the webhook endpoint", call(ledger, lbUrl, "webhook endpoint", "POST", "/api/v1/webhook-endpoints", { token: apiKey, body: { url: receiver.url } }), 201);
  receiver.setSecret(endpoint.data.secret);
  const customerCount = settings.workers * settings.customersPerWorker;
  const customers = [];
  for (let i = 0; i < customerCount; i += 4) {
    customers.push(...(await Promise.all(Array.from({ length: Math.min(4, customerCount - i) }, async (_, j) => {
      const email = `customer-${i + j}@chaos.example`;
      const body = await must("register a customer", retrying(() => call(ledger, lbUrl, "register", "POST", "/api/v1/auth/register", {
        tenant,
        body: { name: `Mteja ${i + j}`, email, password: `chaos password ${runTag} ${i + j}` },
      })), 201);
      return { id: body.data.user.id, accessToken: body.data.access_token };
    }))));
  }
  log(`shop ${tenant}: an API key, a webhook endpoint (${receiver.url}), ${customers.length} customers`);

  // ── The storm, and the faults on a schedule. ──
  phase = "steady";
  const stormStart = performance.now();
  let storming = true;
  const running = () => storming;
  const live = { a: true, b: true };
  const workers = Array.from({ length: settings.workers }, (_, w) => customers.slice(w * settings.customersPerWorker, (w + 1) * settings.customersPerWorker));
  const intents = [];
  const checkouts = runCheckouts({
    ledger, base: lbUrl, tenant, apiKey, workers, runTag, until: running, gates, relay, intents,
    instances: () => Object.values(instances).filter((instance) => live[instance.name]),
  });
  const readers = runReaders({ ledger, base: lbUrl, tenant, apiKey, customers, readers: settings.readers, until: running, intents });
  log(`storm: ${settings.workers} checkout workers and ${settings.readers} readers; a fault after every ${settings.gapS} s of steady load`);
  const steady = async () => {
    phase = "steady";
    await sleep(settings.gapS * 1000);
  };
  const timings = {};

  // An instance killed (SIGKILL) and started again at once, as a supervisor would.
  await steady();
  phase = "kill";
  const claimed = await cluster.json("SELECT coalesce(json_agg(id), '[]') FROM webhook_deliveries WHERE locked_until > now()");
  live.a = false;
  const killedAt = performance.now();
  await children.stop(instances.a.handle, "SIGKILL");
  faults.push({ what: "kill", from: killedAt });
  timings.killLeasedDeliveries = claimed.length;
  log(`kill -9 instance a (it and b held ${claimed.length} webhook deliveries under lease); starting it again`);
  await startInstance(instances.a);
  timings.killRestartMs = performance.now() - killedAt;
  live.a = true;
  await upIn("a");
  timings.killBackInBalancerMs = performance.now() - killedAt;
  const pickedUp = claimed.length
    ? until("the killed instance's deliveries to be sent by another", async () =>
        (await cluster.json(`SELECT count(*) FROM webhook_deliveries WHERE id IN (${claimed.map((id) => `'${id}'`).join(",")}) AND status = 'pending'`)) === 0
          && performance.now(), { timeoutMs: 60_000, intervalMs: 200 }).then((doneAt) => (timings.killDeliveriesDoneMs = doneAt - killedAt))
    : Promise.resolve();
  await sleep(2_000);
  faults.at(-1).to = performance.now();
  log(`instance a back: listening ${(timings.killRestartMs / 1000).toFixed(1)} s after the kill, up in the balancer after ${(timings.killBackInBalancerMs / 1000).toFixed(1)} s`);

  // PostgreSQL stopped (fast: sessions ended) for about 3 s, then started again.
  await steady();
  phase = "database";
  const readiness = watchReadiness(Object.values(instances));
  const stopAsked = performance.now();
  faults.push({ what: "database", from: stopAsked });
  await cluster.stop("fast");
  const stoppedAt = performance.now();
  log(`PostgreSQL stopped (pg_ctl stop -m fast took ${Math.round(stoppedAt - stopAsked)} ms)`);
  await sleep(3_000);
  await cluster.start();
  const startedAt = performance.now();
  log(`PostgreSQL started again after ${((startedAt - stoppedAt) / 1000).toFixed(1)} s`);
  // The fault lasts until both answer again and both listen for status notices again (their listening
  // connections reconnect with a growing pause: meanwhile subscribers rely on their 2 s re-check).
  const back = (instance) => readiness.listeningAfter(instance.name, startedAt);
  await until("both instances ready and listening again", async () => Object.values(instances).every(back), { timeoutMs: 60_000 });
  readiness.stop();
  timings.database = Object.fromEntries(Object.values(instances).map((instance) => [instance.name, {
    unreadyAfterStopMs: readiness.firstUnready(instance.name, stopAsked) - stopAsked,
    readyAfterStartMs: readiness.readyAfter(instance.name, startedAt) - startedAt,
    listeningAfterStartMs: back(instance) - startedAt,
  }]));
  await sleep(1_000);
  faults.at(-1).to = performance.now();

  // A rolling deploy of b: SIGTERM while the load flows, then the new process.
  await steady();
  phase = "drain";
  const drainWatch = watchReadiness([instances.b]);
  const termAt = performance.now();
  faults.push({ what: "drain", from: termAt });
  live.b = false;
  const exited = children.stop(instances.b.handle, "SIGTERM", 30_000);
  const downAt = until("the balancer to take b out", async () => (await balancer.states()).b !== "UP" && performance.now(), { timeoutMs: 30_000, intervalMs: 100 });
  const exit = await exited;
  timings.drain = { exitMs: performance.now() - termAt, exit: exit.code ?? exit.signal };
  timings.drain.unreadyMs = drainWatch.firstUnready("b", termAt) - termAt;
  timings.drain.outOfBalancerMs = (await downAt) - termAt;
  drainWatch.stop();
  log(`instance b drained and exited (${timings.drain.exit}) ${(timings.drain.exitMs / 1000).toFixed(1)} s after SIGTERM; starting the new one`);
  await startInstance(instances.b);
  live.b = true;
  await upIn("b");
  timings.drain.backInBalancerMs = performance.now() - termAt;
  await sleep(2_000);
  faults.at(-1).to = performance.now();
  log(`instance b back in the balancer ${(timings.drain.backInBalancerMs / 1000).toFixed(1)} s after SIGTERM`);

  await steady();
  storming = false;
  timings.stormMs = performance.now() - stormStart;
  const storm = await checkouts;
  await readers;
  phase = "settling";
  log(`storm over: ${storm.acknowledged.length} payments acknowledged; waiting for callbacks and webhooks to settle`);

  // ── Settling: every callback delivered, every payment final, every event received. ──
  const settleStart = performance.now();
  await until("the relay to deliver every callback", async () => relay.stats().pending === 0, { timeoutMs: 90_000, intervalMs: 200 }).catch((error) => log(String(error.message)));
  const ids = storm.acknowledged.map((payment) => `'${payment.paymentId}'`).join(",") || "NULL";
  await until("every acknowledged payment to be final", async () =>
    (await cluster.json(`SELECT count(*) FROM payments WHERE id IN (${ids}) AND status = 'PENDING'`)) === 0, { timeoutMs: 60_000, intervalMs: 250 })
    .catch((error) => log(String(error.message)));
  await until("every webhook event to reach the receiver", async () => {
    const events = await cluster.json(`SELECT coalesce(json_agg(id), '[]') FROM webhook_events WHERE tenant_id = '${tenant}'`);
    return events.every((id) => receiver.events.has(id));
  }, { timeoutMs: 90_000, intervalMs: 500 }).catch((error) => log(String(error.message)));
  await Promise.race([pickedUp, sleep(1_000)]);
  timings.settleMs = performance.now() - settleStart;

  const result = await checkRun({ cluster, tenant, storm, relay, receiver, ledger, faults, timings });
  result.run = {
    date: new Date().toISOString(),
    machine: `${os.cpus().length} cores, ${os.type()} ${os.release()}, Node ${process.version}`,
    balancer: balancer.kind,
    postgres: cluster.bin,
    workers: settings.workers,
    readers: settings.readers,
    gapS: settings.gapS,
    totalS: Number(((performance.now() - started) / 1000).toFixed(1)),
    loadAverage: os.loadavg().map((value) => Number(value.toFixed(2))),
  };
  writeFileSync(path.join(dir, "result.json"), JSON.stringify(result, null, 2));
  printReport(result, log);
  return result.checks.every((check) => check.ok);
}

/** Polls /readyz of each instance every 20 ms (directly), keeping each answer's time and status. */
function watchReadiness(list) {
  const answers = new Map(list.map((instance) => [instance.name, []]));
  let stopped = false;
  for (const instance of list) {
    void (async () => {
      while (!stopped) {
        let status = 0;
        let listener;
        try {
          const response = await fetch(`${instance.url}/readyz`, { signal: AbortSignal.timeout(2_000) });
          status = response.status;
          listener = (await response.json()).status_listener;
        } catch {
          // no answer: status 0
        }
        answers.get(instance.name).push({ at: performance.now(), status, listener });
        await sleep(20);
      }
    })();
  }
  return {
    stop: () => (stopped = true),
    firstUnready: (name, after) => answers.get(name).find((answer) => answer.at >= after && answer.status !== 200)?.at ?? NaN,
    readyAfter: (name, after) => answers.get(name).find((answer) => answer.at >= after && answer.status === 200)?.at,
    /** When /readyz said the status listener is connected again (docs/deployment.md#status-across-instances). */
    listeningAfter: (name, after) =>
      answers.get(name).find((answer) => answer.at >= after && answer.status === 200 && answer.listener === "connected")?.at,
  };
}

let ok = false;
try {
  ok = await main();
} catch (error) {
  console.error(`\nthe run could not be made: ${error?.stack ?? error}`);
  await cleanUp(true);
  process.exit(2);
}
await cleanUp(!ok);
console.log(ok ? "\nchaos run: every check held" : "\nchaos run: a check FAILED");
process.exit(ok ? 0 : 1);
