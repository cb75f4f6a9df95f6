#!/usr/bin/env node
// Does memory grow with requests? Mteja (a process of its own, bench/login-server.mjs, pinned to core 0)
// answers GET /api/v1/auth/me from autocannon (50 connections, on core 1) in steps; the server's resident
// set size (VmRSS, /proc/<pid>/status) is read after the first 10,000 requests and after each further
// step, after a full garbage collection asked of the server (it runs with --expose-gc). Goal (issue 12):
// RSS after 200,000 requests at most 10 % above RSS after the first 10,000. The hand-written server is
// measured the same way, for reference.
//
// Why collect first: read without one, RSS lands wherever V8's collection schedule left it — 340 to
// 510 MiB within one run of one build, down and up again (docs/performance.md, "Memory"). What stays
// resident after a full collection is what requests left behind: the leak the goal is about. The reading
// before the collection is printed too.
//
//   node bench/memory.mjs [--requests 200000] [--step 50000] [--connections 50]
import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { args, conditions, load, prepare, signIn, startServer, writeResults } from "./login-common.mjs";

const total = Number(args.requests ?? 200_000);
const step = Number(args.step ?? 50_000);
const connections = Number(args.connections ?? 50);
const first = 10_000;

function rssMiB(pid) {
  const kib = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
  return kib / 1024;
}

const db = await prepare();
const results = [];
try {
  for (const target of ["mteja", "hand-written"]) {
    const server = await startServer({ target, hasher: "threads", database: db.database, key: db.key, nodeOptions: ["--expose-gc"] });
    try {
      const token = await signIn(server.url);
      const headers = { authorization: `Bearer ${token}`, "x-tenant-id": "default" };
      const points = [];
      let done = 0;
      for (const amount of [first, ...Array.from({ length: Math.ceil((total - first) / step) }, (_, i) => Math.min(step, total - first - i * step))]) {
        const r = await load({ url: `${server.url}/api/v1/auth/me`, headers, connections, amount });
        if (r.non2xx || r.errors) throw new Error(`${target}: ${r.non2xx} non-2xx, ${r.errors} errors`);
        done += amount;
        await sleep(1000);
        const beforeCollectionMiB = rssMiB(server.pid);
        await server.collect();
        await sleep(1000);
        points.push({ requests: done, rssMiB: rssMiB(server.pid), beforeCollectionMiB, requestsPerSecond: r.requests.average });
        console.log(
          `${target.padEnd(12)} after ${String(done).padStart(7)} requests: RSS ${points.at(-1).rssMiB.toFixed(1)} MiB after a full collection (${beforeCollectionMiB.toFixed(1)} MiB before it; ${r.requests.average.toFixed(0)} req/s)`,
        );
      }
      const growth = points.at(-1).rssMiB / points[0].rssMiB - 1;
      results.push({ target, points, growth });
      console.log(`${target.padEnd(12)} RSS after ${done} requests is ${(100 * growth).toFixed(1)} % ${growth >= 0 ? "above" : "below"} RSS after the first ${first}`);
    } finally {
      await server.stop();
    }
  }
} finally {
  await db.drop();
}
const mteja = results.find((r) => r.target === "mteja");
const checks = [{ what: `memory: Mteja RSS after ${total} /me requests vs after ${first}`, measured: mteja.growth, goal: "<= +0.10", met: mteja.growth <= 0.1 }];
writeResults("memory", { total, step, connections, conditions, results, checks });
