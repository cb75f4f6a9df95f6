#!/usr/bin/env node
// GET /api/v1/auth/me alone, then during a storm of logins (autocannon, --login-connections on
// POST /api/v1/auth/login at once), for the hand-written server and Mteja with argon2id on libuv's
// threads and in the pool of nice-10 processes (bench/login-server.mjs, pinned to one core).
// Goals: /me keeps >= 80 % of its unloaded requests/s (the logins completed per second during the storm
// reported beside it), its p99 stays <= 3x the unloaded p99, and no login waits more than 5 s (the excess
// is shed with 429 and a Retry-After).
//
//   node bench/login-storm.mjs [--seconds 10] [--connections 50] [--login-connections 50] [--rounds 3]
import { setTimeout as sleep } from "node:timers/promises";
import { args, conditions, eachServer, loginLoad, meLoad, median, signIn, statuses, tenantHeaders, user, writeResults } from "./login-common.mjs";

const seconds = Number(args.seconds ?? 10);
const connections = Number(args.connections ?? 50);
const loginConnections = Number(args["login-connections"] ?? 50);
const rounds = Number(args.rounds ?? 3);

const results = await eachServer(rounds, async (url, name) => {
  const token = await signIn(url);
  await meLoad(url, token, { connections, seconds: Math.min(3, seconds) }); // warm-up
  const alone = await meLoad(url, token, { connections, seconds });
  const probes = probeLogins(url, seconds);
  const [me, logins] = await Promise.all([meLoad(url, token, { connections, seconds }), loginLoad(url, { connections: loginConnections, seconds })]);
  const probed = await probes;
  const row = {
    meAlone: alone.requests.average,
    meAloneP99: alone.latency.p99,
    meStorm: me.requests.average,
    meStormP99: me.latency.p99,
    kept: me.requests.average / alone.requests.average,
    p99Factor: me.latency.p99 / alone.latency.p99,
    loginsPerSecond: logins["2xx"] / seconds,
    loginP99: logins.latency.p99,
    loginMax: logins.latency.max,
    logins: statuses(logins),
    shed: { ...logins.shed, probesWithoutRetryAfter: probed.filter((p) => p.status === 429 && !(Number.isInteger(Number(p.retryAfter)) && Number(p.retryAfter) >= 1)).length },
    // autocannon drops what is still in flight when the run ends: the probes are waited for to the end.
    probes: probed,
    loginMaxWait: Math.max(logins.latency.max, ...probed.map((p) => p.ms)),
  };
  console.log(
    `${name.padEnd(16)} /me ${row.meAlone.toFixed(0)} req/s (p99 ${row.meAloneP99} ms) alone, ${row.meStorm.toFixed(0)} req/s (p99 ${row.meStormP99} ms) in the storm: kept ${(100 * row.kept).toFixed(0)} %, p99 x${row.p99Factor.toFixed(1)}; logins ${row.loginsPerSecond.toFixed(1)}/s p99 ${row.loginP99} ms max ${row.loginMax} ms (probes: longest ${row.loginMaxWait} ms, ${probed.filter((p) => p.status === 429).length}/${probed.length} shed) ${JSON.stringify(row.logins)}, 429 without Retry-After ${row.shed.withoutRetryAfter}`,
  );
  return row;
});
console.log(`\n/me ${connections} connections + logins ${loginConnections} connections, ${seconds} s x ${rounds} rounds; ${conditions}`);
for (const r of results) {
  const answered = r.logins["2xx"] + r.logins["429"];
  console.log(`round ${r.round} ${r.name.padEnd(16)} kept ${(100 * r.kept).toFixed(0)} %, p99 x${r.p99Factor.toFixed(1)}, logins completed ${r.loginsPerSecond.toFixed(1)}/s (${r.logins["429"]} of ${answered} answered 429), longest login wait ${r.loginMaxWait} ms`);
}
/**
 * One extra login every half second of the storm, each followed to its answer however long it takes
 * (autocannon stops counting at the end of its run): the longest wait a sign-in saw.
 */
async function probeLogins(url, seconds) {
  const sent = [];
  for (let at = 0; at < seconds * 1000; at += 500) {
    const started = performance.now();
    sent.push(
      fetch(`${url}/api/v1/auth/login`, { method: "POST", headers: tenantHeaders, body: JSON.stringify(user) })
        .then(async (response) => ({ status: response.status, retryAfter: response.headers.get("retry-after"), ms: Math.round(performance.now() - started), text: await response.text() }))
        .then(({ text: _text, ...probe }) => probe),
    );
    await sleep(500);
  }
  return Promise.all(sent);
}

// Each server's goals on the median of its rounds (the longest login wait: the worst round's).
const checks = [...new Set(results.map((r) => r.name))].flatMap((name) => {
  const own = results.filter((r) => r.name === name);
  const kept = median(own.map((r) => r.kept));
  const logins = median(own.map((r) => r.loginsPerSecond));
  return [
    { what: `storm ${name}: /me throughput kept, median of ${own.length} (logins ${logins.toFixed(1)}/s)`, measured: kept, goal: ">= 0.80", met: kept >= 0.8 },
    { what: `storm ${name}: /me p99 / unloaded p99, median`, measured: median(own.map((r) => r.p99Factor)), goal: "<= 3", met: median(own.map((r) => r.p99Factor)) <= 3 },
    { what: `storm ${name}: longest login wait (ms), every round`, measured: Math.max(...own.map((r) => r.loginMaxWait)), goal: "<= 5000", met: own.every((r) => r.loginMaxWait <= 5000) },
    {
      what: `storm ${name}: 429s without Retry-After, every round`,
      measured: own.reduce((sum, r) => sum + r.shed.withoutRetryAfter + r.shed.probesWithoutRetryAfter, 0),
      goal: "0",
      met: own.every((r) => r.shed.withoutRetryAfter + r.shed.probesWithoutRetryAfter === 0),
    },
  ];
});
writeResults("login-storm", { seconds, connections, loginConnections, rounds, results, checks });
