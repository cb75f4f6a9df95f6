#!/usr/bin/env node
// Two builds of apps/api in one process, on the same database and the same services, loaded in
// alternation: the way to tell a small change from the machine's noise (ratios of one run, not
// requests/s between runs). The other build is a copy of apps/api/dist made before the change, kept
// inside apps/api so that it resolves the same packages, e.g.
//
//   git stash && pnpm exec turbo run build --filter=@mteja/api && cp -r apps/api/dist apps/api/dist-before && git stash pop && pnpm exec turbo run build --filter=@mteja/api
//   node bench/ab.mjs --before apps/api/dist-before [--path /trpc/profile.me] [--seconds 5] [--rounds 4] [--connections 50]
//
// For a change to a patched dependency, give the before build the dependency's previous copy (pnpm
// keeps it in node_modules/.pnpm after `pnpm patch-commit`) through a link inside it, e.g.
// apps/api/dist-before/node_modules/@trpc/server → node_modules/.pnpm/@trpc+server@…_patch_hash=<old>/node_modules/@trpc/server.
//
// Prints requests/s and p99 of each build per round and the ratio after/before over all rounds.
import path from "node:path";
import { pathToFileURL } from "node:url";
import { load, pinServerCore, startMteja } from "./targets.mjs";
import { args } from "./args.mjs";

if (!args.before) throw new Error("--before <a copy of apps/api/dist from before the change> is required");
const seconds = Number(args.seconds ?? 5);
const rounds = Number(args.rounds ?? 4);
const connections = Number(args.connections ?? 50);
const route = args.path ?? "/trpc/profile.me";

const mteja = await startMteja(); // the current build, with its services
const before = await import(pathToFileURL(path.resolve(args.before, "index.js")).href);
const other = await before.buildServer({ settings: mteja.settings, deps: mteja.services.deps, logger: false });
await other.listen({ port: 0, host: "127.0.0.1" });
const targets = { before: `http://127.0.0.1:${other.server.address().port}${route}`, after: `${mteja.base}${route}` };
for (const url of Object.values(targets)) {
  const res = await fetch(url, { headers: mteja.headers });
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
}
pinServerCore();
// Warm-up, twice each: a build loaded first would otherwise pay the JIT in its first measured round.
for (let i = 0; i < 2; i++) for (const url of Object.values(targets)) await load(url, mteja.headers, { connections, seconds: 3 });
// CPU time of this process per answered request: it moves far less with the machine's load than requests/s.
const sums = { before: 0, after: 0, beforeP99: 0, afterP99: 0, beforeCpu: 0, afterCpu: 0, beforeRequests: 0, afterRequests: 0 };
for (let round = 1; round <= rounds; round++) {
  // Alternate which goes first, so a trend in the machine's load does not favour one.
  const order = round % 2 ? ["before", "after"] : ["after", "before"];
  const row = {};
  for (const name of order) {
    const cpu = process.cpuUsage();
    const r = await load(targets[name], mteja.headers, { connections, seconds });
    const used = process.cpuUsage(cpu);
    sums[`${name}Cpu`] += used.user + used.system;
    sums[`${name}Requests`] += r.requests.total;
    r.cpuPerRequest = (used.user + used.system) / r.requests.total;
    if (r.non2xx || r.errors) throw new Error(`${name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
    row[name] = r;
    sums[name] += r.requests.average;
    sums[`${name}P99`] += r.latency.p99;
  }
  console.log(`round ${round}: before ${row.before.requests.average.toFixed(0)} req/s (p99 ${row.before.latency.p99} ms, ${row.before.cpuPerRequest.toFixed(0)} µs CPU each), after ${row.after.requests.average.toFixed(0)} req/s (p99 ${row.after.latency.p99} ms, ${row.after.cpuPerRequest.toFixed(0)} µs)`);
}
const cpuBefore = sums.beforeCpu / sums.beforeRequests;
const cpuAfter = sums.afterCpu / sums.afterRequests;
console.log(
  `${route}: after/before = ${(sums.after / sums.before).toFixed(3)} req/s, p99 ${(sums.afterP99 / sums.beforeP99).toFixed(2)}x; CPU per request ${cpuBefore.toFixed(0)} → ${cpuAfter.toFixed(0)} µs (${((100 * (cpuAfter - cpuBefore)) / cpuBefore).toFixed(1)} %) (${rounds} x ${seconds} s, ${connections} connections)`,
);
await other.close();
await mteja.close();
