#!/usr/bin/env node
// POST /api/v1/auth/login: Mteja (argon2id on libuv's threads, and in the pool of nice-10 processes)
// against a hand-written Fastify + pg + argon2 + jsonwebtoken login doing the same work at the same
// argon2id parameters (bench/login-server.mjs). Each server runs alone, pinned to one core; rounds alternate.
//
//   node bench/login.mjs [--seconds 10] [--connections 50] [--rounds 3]
import { writeFileSync, mkdirSync } from "node:fs";
import { args, conditions, loginLoad, prepare, signIn, startServer, statuses } from "./login-common.mjs";

const seconds = Number(args.seconds ?? 10);
const connections = Number(args.connections ?? 50);
const rounds = Number(args.rounds ?? 3);
const targets = [
  { name: "hand-written", target: "hand-written" },
  { name: "mteja threads", target: "mteja", hasher: "threads" },
  { name: "mteja processes", target: "mteja", hasher: "processes" },
];

const db = await prepare();
const results = [];
for (let round = 1; round <= rounds; round++) {
  for (const t of targets) {
    const server = await startServer({ ...t, database: db.database, key: db.key });
    await signIn(server.url); // starts the hashing processes, warms the pools
    await loginLoad(server.url, { connections, seconds: Math.min(3, seconds) }); // warm-up
    const r = await loginLoad(server.url, { connections, seconds });
    await server.stop();
    const ok = r["2xx"] / seconds;
    results.push({ round, name: t.name, ok, p99: r.latency.p99, max: r.latency.max, ...statuses(r) });
    console.log(`round ${round} ${t.name.padEnd(16)} ${ok.toFixed(1)} logins/s (p99 ${r.latency.p99} ms, max ${r.latency.max} ms) ${JSON.stringify(statuses(r))}`);
  }
}
const mean = (name, key) => results.filter((r) => r.name === name).reduce((s, r) => s + r[key], 0) / rounds;
console.log(`\nPOST /api/v1/auth/login, ${connections} connections, ${seconds} s x ${rounds} rounds; ${conditions}`);
const baseline = mean("hand-written", "ok");
const summary = targets.map((t) => ({ name: t.name, loginsPerSecond: mean(t.name, "ok"), p99: mean(t.name, "p99"), ratio: mean(t.name, "ok") / baseline }));
for (const s of summary) console.log(`${s.name.padEnd(16)} ${s.loginsPerSecond.toFixed(1)} logins/s, p99 ${s.p99.toFixed(0)} ms, ${s.ratio.toFixed(3)} of hand-written`);
mkdirSync(new URL("./results/", import.meta.url), { recursive: true });
writeFileSync(new URL("./results/login.json", import.meta.url), JSON.stringify({ at: new Date().toISOString(), seconds, connections, rounds, conditions, summary, results }, null, 2));
await db.drop();
