#!/usr/bin/env node
// Callback ingestion: Daraja's STK result callback through Mteja (POST /api/momo/callback/stkpush: token,
// stored verbatim, applied once, acknowledged after the commit) against a hand-written Fastify + pg route
// doing the same two steps by hand (INSERT the raw body; then in one transaction lock the payment, settle
// it if PENDING, record the outcome on the stored row; answer). Each server is a process of its own
// (bench/login-server.mjs) started alone on core 0; autocannon (bench/callback-load.mjs) loads it from
// core 1, every request settling a payment of its own (seeded PENDING); each round starts every server
// afresh, and the published figures are the medians of the rounds.
// Then a storm: 2,000 callbacks, a quarter of them duplicates (half sent at the same moment as their
// original, half later), at 50 at a time into Mteja; afterwards the database must hold every callback
// once and every payment settled once (nothing lost, nothing applied twice).
//
// Each run also reports the server process's CPU time per callback (/proc): the figure that moves least
// with the machine's load. For reference, not goals: `statements` (Mteja's statements of a locked apply
// written by hand) and, when named, `optimistic` (the same work in three round trips).
//
//   node bench/callbacks.mjs [--seconds 10] [--connections 50] [--rounds 3] [--storm 2000] [--targets mteja,baseline,statements,optimistic]
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { stkCallbackBody } from "./callback-body.mjs";
import { args, conditions, eachServer, median, writeResults } from "./login-common.mjs";
import { seedPendingPayments, vacuumAnalyze } from "./seed.mjs";
import { onLoadCore } from "./targets.mjs";

const seconds = Number(args.seconds ?? 10);
const connections = Number(args.connections ?? 50);
const rounds = Number(args.rounds ?? 3);
const stormSize = Number(args.storm ?? 2000);
const path = "/api/momo/callback/stkpush";
const callbackSecret = randomBytes(32).toString("hex");

const allServers = [
  { name: "baseline", label: "hand-written", target: "callback-hand-written" },
  { name: "mteja", label: "Mteja", target: "mteja" },
  { name: "statements", label: "Mteja's statements by hand", target: "callback-statements" },
  { name: "optimistic", label: "optimistic settle by hand", target: "callback-optimistic" },
].map((server) => ({ ...server, callbackSecret }));
const named = (args.targets ?? "mteja,baseline,statements").split(",");
const servers = allServers.filter((server) => named.includes(server.name));
const labelOf = (name) => allServers.find((server) => server.name === name).label;

// Each load run settles payments of its own; seeded for well above the rate either target reaches.
const perRun = Math.max(20_000, seconds * 6_000);
let run = 0;
let storm;
const results = await eachServer(
  rounds,
  async (url, name, { server, db }) => {
    await loadRun(url, name, db, Math.min(3, seconds)); // warm-up: JIT, pools
    const r = await loadRun(url, name, db, seconds, server);
    console.log(`${labelOf(name).padEnd(28)} ${r.requests.average.toFixed(0)} callbacks/s (p99 ${r.latency.p99} ms, CPU ${r.cpuMsPerCallback.toFixed(2)} ms/callback)`);
    return { rps: r.requests.average, p99: r.latency.p99, cpu: r.cpuMsPerCallback };
  },
  servers,
  {
    after: async ({ db, start }) => {
      if (!named.includes("mteja")) return;
      const mteja = await start(allServers.find((server) => server.name === "mteja"));
      try {
        storm = await callbackStorm(`${mteja.url}${path}?token=${callbackSecret}`, db, stormSize);
      } finally {
        await mteja.stop();
      }
    },
  },
);

async function loadRun(url, name, db, runSeconds, server) {
  run++;
  const prefix = `ws_CO_r${run}${name[0]}_`;
  await seedPendingPayments(String(db.database), { userId: db.userId, prefix, count: perRun });
  // Vacuumed and analysed now, not by autovacuum in the middle of this run or the next server's.
  await vacuumAnalyze(String(db.database), "payments, momo_callbacks, webhook_events");
  const cpuBefore = server?.cpuMs() ?? 0;
  const target = `${url}${path}?token=${callbackSecret}`;
  const receiptTag = `R${run.toString(36).toUpperCase().padStart(3, "0")}`;
  const result = await loadCallbacks({ url: target, prefix, receiptTag, connections, seconds: runSeconds, count: perRun });
  result.cpuMsPerCallback = ((server?.cpuMs() ?? 0) - cpuBefore) / Math.max(1, result.requests.total);
  if (result.sent > perRun) console.warn(`${name}: ${result.sent} callbacks built for ${perRun} payments: the rest were duplicates`);
  if (result.non2xx || result.errors) throw new Error(`errors during the run: ${name} ${JSON.stringify({ non2xx: result.non2xx, errors: result.errors })}`);
  return result;
}

const figure = (name, key) => median(results.filter((r) => r.name === name).map((r) => r[key]));
const summary = Object.fromEntries(servers.map(({ name }) => [name, { rps: figure(name, "rps"), p99: figure(name, "p99"), cpu: figure(name, "cpu") }]));
console.log(`\nSTK callbacks, ${connections} connections, ${seconds} s x ${rounds} rounds, medians; ${conditions}`);
for (const [name, s] of Object.entries(summary)) {
  const ratio = summary.baseline ? ` (${(s.rps / summary.baseline.rps).toFixed(3)}x, p99 ${(s.p99 / summary.baseline.p99).toFixed(2)}x)` : "";
  console.log(`  ${labelOf(name).padEnd(28)} ${s.rps.toFixed(0)}/s, p99 ${s.p99} ms, CPU ${s.cpu.toFixed(2)} ms/callback${ratio}`);
}
if (!summary.mteja || !summary.baseline) process.exit(0);
const ratio = summary.mteja.rps / summary.baseline.rps;
const p99Ratio = summary.mteja.p99 / summary.baseline.p99;
const statementsRatio = summary.statements ? summary.statements.rps / summary.baseline.rps : undefined;
const optimisticRatio = summary.optimistic ? summary.optimistic.rps / summary.baseline.rps : undefined;
console.log(
  `storm: ${storm.sent} callbacks (${storm.duplicates} duplicates) in ${storm.seconds.toFixed(1)} s, answers ${JSON.stringify(storm.answers)}; in the database: ${JSON.stringify(storm.found)} → ${storm.problems.length ? storm.problems.join("; ") : "nothing lost, nothing applied twice"}`,
);

const checks = [
  { what: "STK callback Mteja / hand-written (callbacks/s)", measured: ratio, goal: ">= 0.80", met: ratio >= 0.8 },
  { what: `callback storm: ${storm.sent} callbacks, ${storm.duplicates} duplicates — problems found in the database`, measured: storm.problems.length, goal: "0", met: storm.problems.length === 0 },
];
writeResults("callbacks", { seconds, connections, rounds, summary, ratio, p99Ratio, statementsRatio, optimisticRatio, results, storm, checks });

/** Runs bench/callback-load.mjs on LOAD_CORE; its JSON result. */
function loadCallbacks(options) {
  return onLoadCore([process.execPath, fileURLToPath(new URL("./callback-load.mjs", import.meta.url)), JSON.stringify(options)], "callback-load");
}

/**
 * `size` callbacks into Mteja, 50 in flight: three quarters settle a payment each, the rest repeat one
 * of them verbatim (Daraja retries), half of the repeats sent together with their original. Then the
 * database is asked what it kept.
 */
async function callbackStorm(target, db, size) {
  const duplicates = Math.floor(size / 4);
  const distinct = size - duplicates;
  const prefix = "ws_CO_storm_";
  await seedPendingPayments(String(db.database), { userId: db.userId, prefix, count: distinct });
  const bodies = Array.from({ length: distinct }, (_, i) => stkCallbackBody(`${prefix}${i + 1}`, `S${(i + 1).toString(36).toUpperCase().padStart(7, "0")}`));
  const queue = [];
  const nearby = Math.floor(duplicates / 2);
  for (let i = 0; i < distinct; i++) {
    queue.push(bodies[i]);
    if (i < nearby) queue.push(bodies[i]); // the repeat right behind its original: both in flight at once
  }
  for (let i = 0; i < duplicates - nearby; i++) queue.push(bodies[(i * 7919) % distinct]); // later repeats
  const answers = {};
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 50 }, async () => {
      while (next < queue.length) {
        const body = queue[next++];
        let key;
        try {
          const response = await fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body });
          const answer = await response.json();
          key = response.status === 200 && answer.ResultCode === 0 ? "200 Accepted" : String(response.status);
        } catch (error) {
          key = `error ${error.code ?? error.message}`;
        }
        answers[key] = (answers[key] ?? 0) + 1;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;

  const client = new pg.Client({ connectionString: String(db.database) });
  await client.connect();
  const stored = (await client.query("SELECT outcome, count(*)::int AS n FROM momo_callbacks WHERE correlation_id LIKE $1 GROUP BY outcome", [`${prefix}%`])).rows;
  const outcomes = Object.fromEntries(stored.map((r) => [r.outcome, r.n]));
  const payments = (
    await client.query(
      `SELECT count(*)::int AS payments,
              count(*) FILTER (WHERE status = 'SUCCESS')::int AS succeeded,
              count(*) FILTER (WHERE (SELECT count(*) FROM momo_callbacks c WHERE c.payment_id = p.id AND c.outcome = 'applied') <> 1)::int AS not_applied_once
         FROM payments p WHERE p.checkout_request_id LIKE $1`,
      [`${prefix}%`],
    )
  ).rows[0];
  await client.end();
  const found = { stored: Object.values(outcomes).reduce((a, b) => a + b, 0), ...outcomes, payments: payments.payments, succeeded: payments.succeeded, notAppliedOnce: payments.not_applied_once };
  const problems = [];
  if (answers["200 Accepted"] !== size) problems.push(`${size - (answers["200 Accepted"] ?? 0)} callbacks not acknowledged`);
  if (found.stored !== size) problems.push(`${found.stored} of ${size} callbacks stored`);
  if ((outcomes.applied ?? 0) !== distinct) problems.push(`${outcomes.applied ?? 0} applied, expected ${distinct}`);
  if ((outcomes.duplicate ?? 0) !== duplicates) problems.push(`${outcomes.duplicate ?? 0} recorded as duplicates, expected ${duplicates}`);
  if (payments.succeeded !== distinct) problems.push(`${payments.succeeded} of ${distinct} payments settled`);
  if (payments.not_applied_once !== 0) problems.push(`${payments.not_applied_once} payments without exactly one applied callback`);
  return { sent: size, duplicates, seconds: elapsed, answers, found, problems };
}
