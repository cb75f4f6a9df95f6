#!/usr/bin/env node
// GET /me through Mteja, over REST (Fastify → trpc-to-openapi → procedure → SQL) and over tRPC
// (/trpc/profile.me), against a minimal Fastify route in the same process doing the same work by hand
// (bench/targets.mjs). All run on PostgreSQL in this process, pinned to one core; autocannon loads them
// from a process on the other core, one after the other, several rounds; the ratios of requests/s and
// of p99 latency to the hand-written route are printed.
//
//   node bench/me.mjs [--seconds 10] [--connections 50] [--rounds 3]
import { mkdirSync, writeFileSync } from "node:fs";
import { seedRows } from "./seed.mjs";
import { load as loadFrom, mePaths, pinServerCore, startBaseline, startMteja } from "./targets.mjs";
import { args } from "./args.mjs";

const seconds = Number(args.seconds ?? 10);
const connections = Number(args.connections ?? 50);
const rounds = Number(args.rounds ?? 3);

const mteja = await startMteja();
const baseline = await startBaseline(mteja);
// The same service checking every token's signature (no verified tokens kept): what the token cache is worth.
const checking = await startMteja({ env: { ACCESS_TOKEN_CACHE_SIZE: "0" }, seed: false });
const targets = { rest: `${mteja.base}${mePaths.rest}`, trpc: `${mteja.base}${mePaths.trpc}`, baseline: `${baseline.base}${mePaths.baseline}`, restChecking: `${checking.base}${mePaths.rest}` };
const headers = mteja.headers;
const headersOf = (name) => (name === "restChecking" ? checking.headers : headers);
for (const [name, url] of Object.entries(targets)) {
  const res = await fetch(url, { headers: headersOf(name) });
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
}

const load = (url, name) => loadFrom(url, headersOf(name), { connections, seconds });
pinServerCore();

for (const [name, url] of Object.entries(targets)) await load(url, name); // warm-up (JIT, pools)
const results = [];
for (let round = 1; round <= rounds; round++) {
  const row = { round };
  for (const [name, url] of Object.entries(targets)) {
    const r = await load(url, name);
    if (r.non2xx || r.errors) throw new Error(`errors during the run: ${name} ${JSON.stringify({ non2xx: r.non2xx, errors: r.errors })}`);
    row[name] = r.requests.average;
    row[`${name}P99`] = r.latency.p99;
  }
  results.push(row);
  console.log(
    `round ${round}: REST ${row.rest.toFixed(0)} req/s (p99 ${row.restP99} ms), tRPC ${row.trpc.toFixed(0)} req/s (p99 ${row.trpcP99} ms), hand-written ${row.baseline.toFixed(0)} req/s (p99 ${row.baselineP99} ms), REST checking every token ${row.restChecking.toFixed(0)} req/s (p99 ${row.restCheckingP99} ms)`,
  );
}
const sum = (key) => results.reduce((s, r) => s + r[key], 0);
const ratio = sum("rest") / sum("baseline");
const trpcRatio = sum("trpc") / sum("baseline");
const p99Ratio = sum("restP99") / sum("baselineP99");
const trpcP99Ratio = sum("trpcP99") / sum("baselineP99");
const checkingRatio = sum("restChecking") / sum("baseline");
const checkingP99Ratio = sum("restCheckingP99") / sum("baselineP99");
console.log(`\nGET /me, ${connections} connections, ${seconds} s x ${rounds} rounds (hand-written ${(sum("baseline") / rounds).toFixed(0)} req/s, p99 ${(sum("baselineP99") / rounds).toFixed(0)} ms)`);
console.log(`  REST  /api/v1/auth/me: Mteja/hand-written = ${ratio.toFixed(3)} (${(sum("rest") / rounds).toFixed(0)} req/s), p99 ${p99Ratio.toFixed(2)}x`);
console.log(`  tRPC  /trpc/profile.me: Mteja/hand-written = ${trpcRatio.toFixed(3)} (${(sum("trpc") / rounds).toFixed(0)} req/s), p99 ${trpcP99Ratio.toFixed(2)}x`);
console.log(`  REST, every token's signature checked (ACCESS_TOKEN_CACHE_SIZE=0): ${checkingRatio.toFixed(3)} (${(sum("restChecking") / rounds).toFixed(0)} req/s), p99 ${checkingP99Ratio.toFixed(2)}x`);
const checks = [
  { what: "/me REST / hand-written (req/s)", measured: ratio, goal: ">= 0.90", met: ratio >= 0.9 },
  { what: "/me REST p99 / hand-written p99", measured: p99Ratio, goal: "<= 1.5", met: p99Ratio <= 1.5 },
  { what: "/me tRPC / hand-written (req/s)", measured: trpcRatio, goal: ">= 0.90", met: trpcRatio >= 0.9 },
  { what: "/me tRPC p99 / hand-written p99", measured: trpcP99Ratio, goal: "<= 1.5", met: trpcP99Ratio <= 1.5 },
];
mkdirSync(new URL("./results/", import.meta.url), { recursive: true });
writeFileSync(
  new URL(`./results/me${seedRows ? "-large" : ""}.json`, import.meta.url),
  JSON.stringify({ at: new Date().toISOString(), seconds, connections, rounds, seedRows, seedSeconds: mteja.seedSeconds, plans: mteja.plans, ratio, trpcRatio, p99Ratio, trpcP99Ratio, checkingRatio, checkingP99Ratio, results, checks }, null, 2),
);

await baseline.close();
await checking.close();
await mteja.close();
