#!/usr/bin/env node
// Callback ingestion: Daraja's STK result callback through Mteja (POST /api/momo/callback/stkpush: token,
// stored verbatim, applied once under the payment's row lock, acknowledged after the commit) against a
// hand-written Fastify + pg route doing the same two steps by hand (INSERT the raw body; then in one
// transaction lock the payment, settle it if PENDING, record the outcome on the stored row; answer).
// Both in this process on PostgreSQL, pinned to one core; autocannon (bench/callback-load.mjs) on the
// other, every request settling a payment of its own (seeded PENDING); rounds alternate.
// Then a storm: 2,000 callbacks, a quarter of them duplicates (half sent at the same moment as their
// original, half later), at 50 at a time into Mteja; afterwards the database must hold every callback
// once and every payment settled once (nothing lost, nothing applied twice).
//
// Each round also prints the CPU time this process spent per callback on each target (only one target is
// loaded at a time): the figure that moves least with the machine's load. `--targets mteja` loads Mteja
// alone (for a profile: `node --cpu-prof --cpu-prof-dir=bench/results bench/callbacks.mjs --targets mteja`).
//
//   node bench/callbacks.mjs [--seconds 10] [--connections 50] [--rounds 3] [--storm 2000] [--targets mteja,baseline,statements,optimistic]
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { stkCallbackBody } from "./callback-body.mjs";
import { startHandWrittenCallbacks, startMtejaStatementsByHand, startOptimisticByHand } from "./hand-written-callback.mjs";
import { seedPendingPayments } from "./seed.mjs";
import { momoEnv, onLoadCore, pinServerCore, startMteja } from "./targets.mjs";
import { args } from "./args.mjs";

const seconds = Number(args.seconds ?? 10);
const connections = Number(args.connections ?? 50);
const rounds = Number(args.rounds ?? 3);
const stormSize = Number(args.storm ?? 2000);
const path = "/api/momo/callback/stkpush";

const secret = randomBytes(32).toString("hex");
const mteja = await startMteja({ env: momoEnv(secret) });
const pool = new pg.Pool({ connectionString: mteja.url, max: mteja.poolMax });
const baseline = await startHandWrittenCallbacks(pool, secret);
// For reference (not a goal): Mteja's statements written by hand (hand-written-callback.mjs).
const byHand = await startMtejaStatementsByHand(pool, secret);
// For reference, asked for by name (--targets …,optimistic): the same work in three round trips.
const optimistic = await startOptimisticByHand(pool, secret);
const allTargets = {
  mteja: `${mteja.base}${path}?token=${secret}`,
  baseline: `${baseline.base}${path}?token=${secret}`,
  statements: `${byHand.base}${path}?token=${secret}`,
  optimistic: `${optimistic.base}${path}?token=${secret}`,
};
const targets = Object.fromEntries(Object.entries(allTargets).filter(([name]) => (args.targets ?? "mteja,baseline,statements").split(",").includes(name)));

// Each load run settles payments of its own; seeded for well above the rate either target reaches.
const perRun = Math.max(20_000, seconds * 6_000);
let run = 0;
async function loadRun(name) {
  run++;
  const prefix = `ws_CO_r${run}${name[0]}_`;
  await seedPendingPayments(mteja.url, { userId: mteja.userId, prefix, count: perRun });
  const cpuBefore = process.cpuUsage();
  const result = await loadCallbacks({ url: targets[name], prefix, receiptTag: `R${run.toString(36).toUpperCase().padStart(3, "0")}`, connections, seconds, count: perRun });
  const cpu = process.cpuUsage(cpuBefore);
  result.cpuMsPerCallback = (cpu.user + cpu.system) / 1000 / Math.max(1, result.requests.total);
  if (result.sent > perRun) console.warn(`${name}: ${result.sent} callbacks built for ${perRun} payments: the rest were duplicates`);
  if (result.non2xx || result.errors) throw new Error(`errors during the run: ${name} ${JSON.stringify({ non2xx: result.non2xx, errors: result.errors })}`);
  return result;
}

pinServerCore();
for (const name of Object.keys(targets)) await loadRun(name); // warm-up (JIT, pools)
const results = [];
for (let round = 1; round <= rounds; round++) {
  const row = { round };
  for (const name of Object.keys(targets)) {
    const r = await loadRun(name);
    row[name] = r.requests.average;
    row[`${name}P99`] = r.latency.p99;
    row[`${name}Cpu`] = r.cpuMsPerCallback;
  }
  results.push(row);
  const label = { mteja: "Mteja", baseline: "hand-written", statements: "Mteja's statements by hand", optimistic: "optimistic settle by hand" };
  console.log(`round ${round}: ${Object.keys(targets).map((name) => `${label[name]} ${row[name].toFixed(0)} callbacks/s (p99 ${row[`${name}P99`]} ms, CPU ${row[`${name}Cpu`].toFixed(2)} ms/callback)`).join(", ")}`);
}
if (!targets.mteja || !targets.baseline) {
  await closeAll();
  process.exit(0);
}
const sum = (key) => results.reduce((s, r) => s + r[key], 0);
const ratio = sum("mteja") / sum("baseline");
const p99Ratio = sum("mtejaP99") / sum("baselineP99");
console.log(`\nSTK callbacks, ${connections} connections, ${seconds} s x ${rounds} rounds (hand-written ${(sum("baseline") / rounds).toFixed(0)}/s, p99 ${(sum("baselineP99") / rounds).toFixed(0)} ms)`);
console.log(`  Mteja/hand-written = ${ratio.toFixed(3)} (${(sum("mteja") / rounds).toFixed(0)}/s), p99 ${p99Ratio.toFixed(2)}x`);
const cpuOf = (name) => results.reduce((s, r) => s + r[`${name}Cpu`], 0) / rounds;
console.log(`  CPU per callback: Mteja ${cpuOf("mteja").toFixed(2)} ms, hand-written ${cpuOf("baseline").toFixed(2)} ms`);
const statementsRatio = targets.statements ? sum("statements") / sum("baseline") : undefined;
if (statementsRatio !== undefined) console.log(`  for reference, Mteja's 6 statements by hand / hand-written = ${statementsRatio.toFixed(3)} (${(sum("statements") / rounds).toFixed(0)}/s, CPU ${cpuOf("statements").toFixed(2)} ms per callback)`);
const optimisticRatio = targets.optimistic ? sum("optimistic") / sum("baseline") : undefined;
if (optimisticRatio !== undefined) console.log(`  for reference, the optimistic settle by hand (3 round trips) / hand-written = ${optimisticRatio.toFixed(3)} (${(sum("optimistic") / rounds).toFixed(0)}/s, CPU ${cpuOf("optimistic").toFixed(2)} ms per callback)`);

const storm = await callbackStorm(stormSize);
console.log(
  `storm: ${storm.sent} callbacks (${storm.duplicates} duplicates) in ${storm.seconds.toFixed(1)} s, answers ${JSON.stringify(storm.answers)}; in the database: ${JSON.stringify(storm.found)} → ${storm.problems.length ? storm.problems.join("; ") : "nothing lost, nothing applied twice"}`,
);

const checks = [
  { what: "STK callback Mteja / hand-written (callbacks/s)", measured: ratio, goal: ">= 0.80", met: ratio >= 0.8 },
  { what: `callback storm: ${storm.sent} callbacks, ${storm.duplicates} duplicates — problems found in the database`, measured: storm.problems.length, goal: "0", met: storm.problems.length === 0 },
];
mkdirSync(new URL("./results/", import.meta.url), { recursive: true });
writeFileSync(new URL("./results/callbacks.json", import.meta.url), JSON.stringify({ at: new Date().toISOString(), seconds, connections, rounds, ratio, p99Ratio, statementsRatio, optimisticRatio, results, storm, checks }, null, 2));

await closeAll();

async function closeAll() {
  await byHand.close();
  await optimistic.close();
  await baseline.close();
  await pool.end();
  await mteja.close();
}

/** Runs bench/callback-load.mjs on LOAD_CORE; its JSON result. */
function loadCallbacks(options) {
  return onLoadCore([process.execPath, fileURLToPath(new URL("./callback-load.mjs", import.meta.url)), JSON.stringify(options)], "callback-load");
}

/**
 * `size` callbacks into Mteja, 50 in flight: three quarters settle a payment each, the rest repeat one
 * of them verbatim (Daraja retries), half of the repeats sent together with their original. Then the
 * database is asked what it kept.
 */
async function callbackStorm(size) {
  const duplicates = Math.floor(size / 4);
  const distinct = size - duplicates;
  const prefix = "ws_CO_storm_";
  await seedPendingPayments(mteja.url, { userId: mteja.userId, prefix, count: distinct });
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
          const response = await fetch(targets.mteja, { method: "POST", headers: { "content-type": "application/json" }, body });
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

  const db = new pg.Client({ connectionString: mteja.url });
  await db.connect();
  const stored = (await db.query("SELECT outcome, count(*)::int AS n FROM momo_callbacks WHERE correlation_id LIKE $1 GROUP BY outcome", [`${prefix}%`])).rows;
  const outcomes = Object.fromEntries(stored.map((r) => [r.outcome, r.n]));
  const payments = (
    await db.query(
      `SELECT count(*)::int AS payments,
              count(*) FILTER (WHERE status = 'SUCCESS')::int AS succeeded,
              count(*) FILTER (WHERE (SELECT count(*) FROM momo_callbacks c WHERE c.payment_id = p.id AND c.outcome = 'applied') <> 1)::int AS not_applied_once
         FROM payments p WHERE p.checkout_request_id LIKE $1`,
      [`${prefix}%`],
    )
  ).rows[0];
  await db.end();
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
