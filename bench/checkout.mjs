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
//   node bench/checkout.mjs [--seconds 10] [--shoppers 20] [--rounds 3] [--delay-ms 100] [--targets hand-written,mteja]
import { checkDatabase, oneCheckout, startCheckoutHarness } from "./checkout-harness.mjs";
import { args, conditions, databaseCpuMs, median, signIn, startServer, writeResults } from "./login-common.mjs";

const seconds = Number(args.seconds ?? 10);
const shoppers = Number(args.shoppers ?? 20);
const rounds = Number(args.rounds ?? 3);
const delayMs = Number(args["delay-ms"] ?? 100);
const { db, receiver, checkout, shop, close } = await startCheckoutHarness({ delayMs });
// `--targets mteja` loads Mteja alone (for a profile); no ratio is then computed.
const named = String(args.targets ?? "hand-written,mteja").split(",");
const servers = [
  { name: "hand-written", target: "hand-written" },
  { name: "mteja", target: "mteja" },
].filter((t) => named.includes(t.name));
let counter = 0;
const results = [];
try {
  for (let round = 1; round <= rounds; round++) {
    for (const t of servers) {
      const server = await startServer({ ...t, database: db.database, key: db.key, checkout });
      try {
        const token = await signIn(server.url);
        await runCheckouts(server.url, token, shop.apiKey, Math.min(3, seconds)); // warm-up: JIT, pools, Daraja token
        const cpuBefore = { server: server.cpuMs(), database: databaseCpuMs() };
        const r = await runCheckouts(server.url, token, shop.apiKey, seconds);
        const perCheckout = (ms) => ms / Math.max(1, r.completed);
        r.cpuMs = { server: perCheckout(server.cpuMs() - cpuBefore.server), database: perCheckout(databaseCpuMs() - cpuBefore.database) };
        results.push({ round, name: t.name, ...r });
        console.log(
          `${t.name.padEnd(14)} ${r.perSecond.toFixed(1)} checkouts/s, p99 ${r.p99} ms (stkpush → webhook), ${r.failed} failed; ` +
            `CPU per checkout: server ${r.cpuMs.server.toFixed(1)} ms, PostgreSQL ${r.cpuMs.database.toFixed(1)} ms`,
        );
      } finally {
        await server.stop();
      }
    }
  }
  const check = await checkDatabase({ db, receiver });
  if (servers.length === 2) compare(check);
  else {
    console.log(`\n${named.join(",")} alone: no ratio; database: ${JSON.stringify(check)}`);
    process.exitCode = check.problems === 0 ? 0 : 1;
  }
} finally {
  await close();
}

/** The ratios of Mteja to the hand-written server, printed and written to results/checkout.json. */
function compare(check) {
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
        const ms = await oneCheckout({ url, token, apiKey, receiver, reference });
        // Only checkouts whose webhook arrived within the measured window count towards the rate.
        if (performance.now() <= end) latencies.push(ms);
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

