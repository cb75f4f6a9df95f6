#!/usr/bin/env node
// POST /api/v1/auth/login: Mteja (argon2id on libuv's threads, and in the pool of nice-10 processes)
// against a hand-written Fastify + pg + argon2 + jsonwebtoken login doing the same work at the same
// argon2id parameters (bench/login-server.mjs). Each server runs alone, pinned to one core; rounds alternate.
//
//   node bench/login.mjs [--seconds 10] [--connections 50] [--rounds 3]
import { args, conditions, eachServer, loginLoad, signIn, statuses, targets, writeResults } from "./login-common.mjs";

const seconds = Number(args.seconds ?? 10);
const connections = Number(args.connections ?? 50);
const rounds = Number(args.rounds ?? 3);

const results = await eachServer(rounds, async (url, name) => {
  await signIn(url); // starts a hashing process, warms the pools
  await loginLoad(url, { connections, seconds: Math.min(3, seconds) }); // warm-up
  const r = await loginLoad(url, { connections, seconds });
  const row = { ok: r["2xx"] / seconds, p99: r.latency.p99, max: r.latency.max, ...statuses(r) };
  console.log(`${name.padEnd(16)} ${row.ok.toFixed(1)} logins/s (p99 ${row.p99} ms, max ${row.max} ms) ${JSON.stringify(statuses(r))}`);
  return row;
});
const mean = (name, key) => results.filter((r) => r.name === name).reduce((s, r) => s + r[key], 0) / rounds;
console.log(`\nPOST /api/v1/auth/login, ${connections} connections, ${seconds} s x ${rounds} rounds; ${conditions}`);
const baseline = mean("hand-written", "ok");
// No ratio when the hand-written login completed nothing (a machine too busy for the run's length).
const summary = targets.map((t) => ({ name: t.name, loginsPerSecond: mean(t.name, "ok"), p99: mean(t.name, "p99"), ratio: baseline > 0 ? mean(t.name, "ok") / baseline : null }));
for (const s of summary) console.log(`${s.name.padEnd(16)} ${s.loginsPerSecond.toFixed(1)} logins/s, p99 ${s.p99.toFixed(0)} ms, ${s.ratio === null ? "no ratio (the hand-written login completed none)" : `${s.ratio.toFixed(3)} of hand-written`}`);
const checks = summary
  .filter((s) => s.name !== "hand-written")
  .map((s) => ({ what: `login ${s.name} / hand-written (logins/s)`, measured: s.ratio ?? "n/a", goal: ">= 0.95", met: s.ratio !== null && s.ratio >= 0.95 }));
writeResults("login", { seconds, connections, rounds, summary, results, checks });
