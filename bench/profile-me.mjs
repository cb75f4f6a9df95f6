#!/usr/bin/env node
// Where does a /me request spend its time? Starts one target in this process (Mteja over REST or tRPC,
// or the hand-written route) pinned to one core, warms it up, then loads it from a separate autocannon
// process on the other core (when `taskset` exists) and records, over the measured phase only:
// - a V8 CPU profile of this process (bench/results/me-<target>-<time>.cpuprofile; summarise it with
//   `node bench/profile-summary.mjs <file>`),
// - the event-loop delay histogram (perf_hooks.monitorEventLoopDelay) and every GC pause, which
//   explain the p99: a long pause delays every request waiting behind it.
// With `--allocations`, instead of the CPU profile: what each function allocated over the measured phase,
// short-lived objects included (V8's sampling heap profiler keeping what minor and major GCs collected),
// printed as bytes per request by function — what the scavenges of a busy run are paying for.
//
//   node bench/profile-me.mjs [--target rest|trpc|baseline] [--seconds 10] [--connections 50] [--rate <req/s>] [--no-profile] [--allocations]
//   node --expose-gc bench/profile-me.mjs --target trpc --promoted     # what each function allocated that outlived the scavenges
import { mkdirSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks";
import { load as loadFrom, mePaths, pinServerCore, startBaseline, startMteja } from "./targets.mjs";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? fallback : args[at + 1];
};
const target = option("target", "rest");
const seconds = Number(option("seconds", 10));
const connections = Number(option("connections", 50));
// --promoted: only what outlived the scavenges (promoted to the old space, whether a mark-compact later
// took it or not), found by dropping samples of objects scavenges collected; run with --expose-gc so a
// last scavenge clears what is merely young when the load ends.
const promoted = args.includes("--promoted");
const allocations = args.includes("--allocations") || promoted;
const profiling = !args.includes("--no-profile") && !allocations;
// A fixed offered rate (requests/s over all connections) makes CPU per request comparable between
// targets and runs: at saturation it also depends on how busy the machine is.
const rate = option("rate", undefined);
if (!(target in mePaths)) throw new Error(`--target is one of ${Object.keys(mePaths).join(", ")}`);

const mteja = await startMteja();
const baseline = target === "baseline" ? await startBaseline(mteja) : undefined;
const url = `${(baseline ?? mteja).base}${mePaths[target]}`;
const check = await fetch(url, { headers: mteja.headers });
if (check.status !== 200) throw new Error(`${url} answered ${check.status}: ${await check.text()}`);

const load = (duration) => loadFrom(url, mteja.headers, { connections, seconds: duration, rate });

pinServerCore();
await load(3); // warm-up: JIT, pools, caches

const delay = monitorEventLoopDelay({ resolution: 1 });
const pauses = [];
const gcObserver = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) pauses.push({ kind: entry.detail?.kind ?? entry.kind, ms: entry.duration });
});
gcObserver.observe({ entryTypes: ["gc"] });
const session = new Session();
if (profiling) {
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.start");
}
if (allocations) {
  session.connect();
  await session.post("HeapProfiler.enable");
  await session.post("HeapProfiler.startSampling", { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: !promoted });
}
delay.enable();
const cpuBefore = process.cpuUsage();
const result = await load(seconds);
const cpu = process.cpuUsage(cpuBefore);
delay.disable();
gcObserver.disconnect();

const ms = (ns) => (ns / 1e6).toFixed(1);
console.log(`${target} ${url}: ${result.requests.average.toFixed(0)} req/s, latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms, non-2xx ${result.non2xx}, errors ${result.errors}`);
// CPU time per answered request is what to compare between runs on a busy machine: it barely moves
// with what else runs, where requests/s and latency do.
const cpuMicros = cpu.user + cpu.system;
console.log(`cpu: ${(cpuMicros / result.requests.total).toFixed(0)} µs per request (${(cpu.user / 1e6).toFixed(1)} s user, ${(cpu.system / 1e6).toFixed(1)} s system for ${result.requests.total} requests)${profiling ? ", profiler on" : ""}`);
console.log(`event-loop delay: p50 ${ms(delay.percentile(50))} ms, p99 ${ms(delay.percentile(99))} ms, max ${ms(delay.max)} ms`);
const gcKinds = { 1: "scavenge", 2: "mark-compact", 4: "incremental", 8: "weak-callbacks", 15: "all" };
const byKind = new Map();
for (const p of pauses) {
  const kind = gcKinds[p.kind] ?? String(p.kind);
  const k = byKind.get(kind) ?? { n: 0, total: 0, max: 0 };
  k.n++;
  k.total += p.ms;
  k.max = Math.max(k.max, p.ms);
  byKind.set(kind, k);
}
for (const [kind, k] of byKind) console.log(`gc ${kind}: ${k.n} pauses, ${k.total.toFixed(0)} ms in all (${((100 * k.total) / (seconds * 1000)).toFixed(1)} % of the run), longest ${k.max.toFixed(1)} ms`);

if (profiling) {
  const { profile } = await session.post("Profiler.stop");
  session.disconnect();
  const dir = new URL("./results/", import.meta.url);
  mkdirSync(dir, { recursive: true });
  const file = new URL(`me-${target}-${new Date().toISOString().replace(/[:.]/g, "-")}.cpuprofile`, dir);
  writeFileSync(file, JSON.stringify(profile));
  console.log(`profile: ${file.pathname} (node bench/profile-summary.mjs ${file.pathname})`);
}

if (allocations) {
  if (promoted) globalThis.gc?.({ type: "minor" });
  const { profile } = await session.post("HeapProfiler.stopSampling");
  session.disconnect();
  printAllocations(profile, result.requests.total);
}

await baseline?.close();
await mteja.close();

/** Bytes allocated per request by function (self), from a sampling heap profile, the top 30. */
function printAllocations(profile, requests) {
  const bySelf = new Map();
  let total = 0;
  const visit = (node) => {
    const frame = node.callFrame;
    const where = frame.url.replace(/^.*node_modules\//, "").replace(/^file:\/\/.*?\/(apps|packages)\//, "$1/");
    const name = `${frame.functionName || "(anonymous)"} ${where}:${frame.lineNumber + 1}`;
    bySelf.set(name, (bySelf.get(name) ?? 0) + node.selfSize);
    total += node.selfSize;
    for (const child of node.children) visit(child);
  };
  visit(profile.head);
  console.log(`${promoted ? "promoted" : "allocated"}: ${(total / requests / 1024).toFixed(1)} KB per request (sampled), by function:`);
  for (const [name, bytes] of [...bySelf].sort((a, b) => b[1] - a[1]).slice(0, 30)) {
    console.log(`${(bytes / requests).toFixed(0).padStart(7)} B  ${((100 * bytes) / total).toFixed(1).padStart(5)} %  ${name}`);
  }
}
