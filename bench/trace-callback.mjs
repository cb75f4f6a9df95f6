#!/usr/bin/env node
// What one STK callback costs in database round trips: Mteja's callback route, called one callback at a
// time (no concurrency, so each figure is one round trip plus the work before the next statement), with
// every statement its pg clients send timed from its start to the start of the next. The profile behind
// the callback ratio of bench/callbacks.mjs (docs/performance.md).
//
//   node bench/trace-callback.mjs [--callbacks 150]
import { createRequire } from "node:module";
import { randomBytes } from "node:crypto";
import { stkCallbackBody } from "./callback-body.mjs";
import { seedPendingPayments } from "./seed.mjs";
import { momoEnv, startMteja } from "./targets.mjs";

const at = process.argv.indexOf("--callbacks");
const count = at === -1 ? 150 : Number(process.argv[at + 1]);

// The pg the db package (and its Prisma adapter) load: every statement goes through Client#query.
const dbRequire = createRequire(new URL("../packages/db/package.json", import.meta.url));
const adapterRequire = createRequire(dbRequire.resolve("@prisma/adapter-pg"));
let events = null;
for (const pg of new Set([dbRequire("pg"), adapterRequire("pg")])) {
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (config, values, callback) {
    const text = typeof config === "string" ? config : config?.text;
    if (events) events.push([performance.now(), String(text).replace(/\s+/g, " ").trim().slice(0, Number(process.env.TRACE_WIDTH ?? 70))]);
    return query.call(this, config, values, callback);
  };
}

const secret = randomBytes(32).toString("hex");
const mteja = await startMteja({ env: momoEnv(secret) });
await seedPendingPayments(mteja.url, { userId: mteja.userId, prefix: "ws_CO_trace_", count: count + 100 });
const url = `${mteja.base}/api/momo/callback/stkpush?token=${secret}`;
const post = (n) => fetch(url, { method: "POST", body: stkCallbackBody(`ws_CO_trace_${n}`, `T${n.toString(36).toUpperCase()}`) }).then((r) => r.text());
for (let n = 1; n <= 100; n++) await post(n); // warm-up

const steps = new Map();
let total = 0;
for (let n = 101; n <= 100 + count; n++) {
  events = [[performance.now(), "(request sent → first statement)"]];
  await post(n);
  events.push([performance.now(), "answered"]);
  // The webhook worker's claim (woken after each settlement) runs beside the request, not in it.
  const own = events.filter(([, text]) => !text.startsWith("WITH due"));
  events = null;
  total += own.at(-1)[0] - own[0][0];
  for (let i = 0; i + 1 < own.length; i++) {
    const times = steps.get(own[i][1]) ?? [];
    times.push(own[i + 1][0] - own[i][0]);
    steps.set(own[i][1], times);
  }
}
console.log(`STK callback, one at a time: ${(total / count).toFixed(1)} ms each, ${[...steps.keys()].length - 1} statements\n   mean  median  statement (time until the next one starts)`);
for (const [text, times] of steps) {
  times.sort((a, b) => a - b);
  console.log(`${(times.reduce((s, t) => s + t, 0) / times.length).toFixed(2).padStart(7)} ${times[times.length >> 1].toFixed(2).padStart(7)}  ${text}`);
}
await mteja.close();
