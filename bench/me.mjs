#!/usr/bin/env node
// GET /me, each server a process of its own (bench/login-server.mjs) started alone on core 0, the load
// generator on core 1: the hand-written route (Fastify + pg + ES256 with a KeyObject, the same SQL and
// body), then Mteja's production server over REST (/api/v1/auth/me) and over tRPC (/trpc/profile.me),
// then Mteja with ACCESS_TOKEN_CACHE_SIZE=0 (every token's signature checked, as the hand-written route
// does). Each round starts every server afresh; the published figures are the medians of the rounds.
//
//   node bench/me.mjs [--seconds 10] [--connections 50] [--rounds 3]
import { args, conditions, eachServer, median, meLoad, signIn, writeResults } from "./login-common.mjs";

const seconds = Number(args.seconds ?? 10);
const connections = Number(args.connections ?? 50);
const rounds = Number(args.rounds ?? 3);

const servers = [
  { name: "hand-written", target: "hand-written" },
  { name: "mteja", target: "mteja" },
  { name: "mteja, every token checked", target: "mteja", env: { ACCESS_TOKEN_CACHE_SIZE: "0" } },
];
/** What each server is loaded on: the hand-written route has REST only. */
const pathsOf = (name) => (name === "hand-written" ? { rest: "/api/v1/auth/me" } : { rest: "/api/v1/auth/me", trpc: "/trpc/profile.me" });

const results = await eachServer(
  rounds,
  async (url, name) => {
    const token = await signIn(url);
    const row = {};
    for (const [kind, path] of Object.entries(pathsOf(name))) {
      await meLoad(url, token, { connections, seconds: Math.min(3, seconds), path }); // warm-up: JIT, pools
      const r = await meLoad(url, token, { connections, seconds, path });
      if (r.non2xx || r.errors) throw new Error(`errors during the run: ${name} ${kind} ${JSON.stringify({ non2xx: r.non2xx, errors: r.errors })}`);
      row[kind] = { rps: r.requests.average, p99: r.latency.p99 };
      console.log(`${`${name} ${kind}`.padEnd(34)} ${r.requests.average.toFixed(0)} req/s, p99 ${r.latency.p99} ms`);
    }
    return row;
  },
  servers,
);

const figure = (name, kind, key) => median(results.filter((r) => r.name === name).map((r) => r[kind][key]));
const baseline = { rps: figure("hand-written", "rest", "rps"), p99: figure("hand-written", "rest", "p99") };
const compared = [
  { what: "/me REST", name: "mteja", kind: "rest", goal: 0.95 },
  { what: "/me tRPC", name: "mteja", kind: "trpc", goal: 0.9 },
  { what: "/me REST, every token checked", name: "mteja, every token checked", kind: "rest" },
  { what: "/me tRPC, every token checked", name: "mteja, every token checked", kind: "trpc" },
].map((c) => {
  const rps = figure(c.name, c.kind, "rps");
  const p99 = figure(c.name, c.kind, "p99");
  return { ...c, rps, p99, ratio: rps / baseline.rps, p99Ratio: p99 / baseline.p99 };
});

console.log(`\nGET /me, ${connections} connections, ${seconds} s x ${rounds} rounds, medians; ${conditions}`);
console.log(`  hand-written: ${baseline.rps.toFixed(0)} req/s, p99 ${baseline.p99} ms`);
for (const c of compared) console.log(`  ${c.what.padEnd(32)} ${c.rps.toFixed(0)} req/s (${c.ratio.toFixed(3)}x), p99 ${c.p99} ms (${c.p99Ratio.toFixed(2)}x)`);

const checks = compared
  .filter((c) => c.goal !== undefined)
  .flatMap((c) => [
    { what: `${c.what} / hand-written (req/s)`, measured: c.ratio, goal: `>= ${c.goal.toFixed(2)}`, met: c.ratio >= c.goal },
    { what: `${c.what} p99 / hand-written p99`, measured: c.p99Ratio, goal: "<= 1.5", met: c.p99Ratio <= 1.5 },
  ]);
const [rest, trpc, restChecking, trpcChecking] = compared;
writeResults("me", {
  seconds,
  connections,
  rounds,
  baseline,
  compared,
  // The keys bench/all.mjs's flatness check reads (seeded against unseeded ratios).
  ratio: rest.ratio,
  trpcRatio: trpc.ratio,
  checkingRatio: restChecking.ratio,
  trpcCheckingRatio: trpcChecking.ratio,
  results,
  checks,
});
