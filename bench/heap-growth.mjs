#!/usr/bin/env node
// How much of each /me request survives into V8's old space? One target in this process (Mteja over
// REST or tRPC, or the hand-written route), pinned to one core, loaded in steps of a fixed number of
// requests from an autocannon process on the other core. The old space (plus large objects) is sampled
// every few milliseconds; its growth, summed over the samples that grew, is what scavenges promoted
// (or V8 pretenured) while the step ran — the drops of mark-compacts are left out. A request whose
// objects die young promotes next to nothing; the hand-written route is the reference.
//
//   node --expose-gc bench/heap-growth.mjs [--target rest|trpc|baseline|all] [--requests 10000] [--steps 5] [--connections 50]
//
// With --expose-gc a full collection runs before each step, so every step starts from the live heap.
import { createRequire } from "node:module";
import { PerformanceObserver } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import v8 from "node:v8";
import { args } from "./args.mjs";
import { mePaths, onLoadCore, pinServerCore, startBaseline, startMteja } from "./targets.mjs";

const targets = args.target === "all" || !args.target ? ["rest", "baseline", "trpc"] : args.target.split(",");
const amount = Number(args.requests ?? 10_000);
const steps = Number(args.steps ?? 5);
const connections = Number(args.connections ?? 50);
const autocannon = createRequire(import.meta.url).resolve("autocannon/autocannon.js");
const MB = 1024 * 1024;

function oldBytes() {
  let bytes = 0;
  for (const space of v8.getHeapSpaceStatistics()) {
    if (space.space_name === "old_space" || space.space_name === "large_object_space") bytes += space.space_used_size;
  }
  return bytes;
}

const collections = { scavenge: 0, markCompact: 0 };
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    if (entry.detail?.kind === 1) collections.scavenge++;
    else if (entry.detail?.kind === 2) collections.markCompact++;
  }
}).observe({ entryTypes: ["gc"] });

/** Loads `amount` requests while sampling the old space; its growth and the collections seen. */
async function step(url, headers) {
  globalThis.gc?.();
  await sleep(20); // the forced collection's entry is delivered asynchronously: not counted in the step
  const before = { ...collections };
  const start = oldBytes();
  let last = start;
  let grown = 0;
  const timer = setInterval(() => {
    const now = oldBytes();
    if (now > last) grown += now - last;
    last = now;
  }, 5);
  const headerArgs = Object.entries(headers).flatMap(([name, value]) => ["-H", `${name}=${value}`]);
  const result = await onLoadCore([process.execPath, autocannon, "--json", "-c", String(connections), "-a", String(amount), ...headerArgs, url], "autocannon");
  await sleep(20);
  clearInterval(timer);
  if (result.non2xx || result.errors) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  const scavenges = collections.scavenge - before.scavenge;
  const markCompacts = collections.markCompact - before.markCompact;
  return { requests: result.requests.total, grown, start, end: oldBytes(), rate: result.requests.average, scavenges, markCompacts };
}

const mteja = await startMteja();
const baseline = targets.includes("baseline") ? await startBaseline(mteja) : undefined;
pinServerCore();
const summary = [];
try {
  for (const target of targets) {
    const url = `${(target === "baseline" ? baseline : mteja).base}${mePaths[target]}`;
    await step(url, mteja.headers); // warm-up: JIT, pools, caches
    const perRequest = [];
    for (let i = 0; i < steps; i++) {
      const s = await step(url, mteja.headers);
      perRequest.push(s.grown / s.requests);
      console.log(
        `${target.padEnd(8)} step ${i + 1}: ${s.requests} requests (${s.rate.toFixed(0)} req/s), old space grew ${(s.grown / MB).toFixed(1)} MB ` +
          `(${(s.grown / s.requests / 1024).toFixed(2)} KB per request; ${(s.start / MB).toFixed(1)} → ${(s.end / MB).toFixed(1)} MB), ${s.scavenges} scavenges, ${s.markCompacts} mark-compacts`,
      );
    }
    perRequest.sort((a, b) => a - b);
    const median = perRequest[Math.floor(perRequest.length / 2)];
    summary.push({ target, median });
  }
} finally {
  await baseline?.close();
  await mteja.close();
}
for (const { target, median } of summary) console.log(`${target.padEnd(8)} old-space growth: median ${(median / 1024).toFixed(2)} KB per request, ${((median * 10_000) / MB).toFixed(1)} MB per 10,000`);
