#!/usr/bin/env node
// The whole comparison in one command (`npm run bench` builds, then runs this): every benchmark of
// bench/, hand-written baselines included, then one table of the goals of issue 12 — measured, goal, met.
// Each part is a process of its own and writes bench/results/<part>.json; the table is read from them.
//
//   node bench/all.mjs [--quick] [--only me,login,storm,callbacks,checkout,webhooks,mixed,memory,large,growth] [--large]
//
//   --quick   short runs (a smoke test: seconds per target, one round; ratios are indicative only).
//             Also MTEJA_BENCH_QUICK=1.
//   --only    the parts to run, comma-separated (default: all but large and growth).
//   --large   the mixed load for 1,000,000 requests (100,000 without), and the 1M-row parts: /me and
//             login again on a database seeded with 1,000,000 users and sessions (MTEJA_BENCH_SEED_ROWS,
//             default 1000000; seeding takes minutes), compared with the unseeded ratios of the same
//             invocation (run first if not selected); and growth, the list operations' time per page
//             before and after 1,000,000 payments, intents, webhook events and security events
//             (MTEJA_BENCH_GROWTH_ROWS, default 1000000).
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const argv = process.argv.slice(2);
const quick = argv.includes("--quick") || process.env.MTEJA_BENCH_QUICK === "1";
const onlyAt = argv.indexOf("--only");
const allParts = ["me", "login", "storm", "callbacks", "checkout", "webhooks", "mixed", "memory", "large", "growth"];
const largeParts = ["large", "growth"];
let selected = onlyAt === -1 ? allParts.filter((p) => !largeParts.includes(p)) : argv[onlyAt + 1].split(",").map((p) => p.trim());
if (argv.includes("--large")) for (const p of largeParts) if (!selected.includes(p)) selected.push(p);
const unknown = selected.filter((p) => !allParts.includes(p));
if (unknown.length) {
  console.error(`unknown part(s) ${unknown.join(", ")}; parts: ${allParts.join(", ")}`);
  process.exit(2);
}
// The large part compares with the unseeded /me and login ratios of this invocation.
if (selected.includes("large")) selected = [...new Set(["me", "login", ...selected])];

const seedRows = process.env.MTEJA_BENCH_SEED_ROWS ?? (quick ? "100000" : "1000000");
const growthRows = process.env.MTEJA_BENCH_GROWTH_ROWS ?? (quick ? "100000" : "1000000");
// Only the large part seeds; the others measure the unseeded database whatever the environment says.
const { MTEJA_BENCH_SEED_ROWS: _seedRows, ...unseededEnv } = process.env;
const parts = {
  me: { script: "me.mjs", args: quick ? ["--seconds", "3", "--rounds", "1"] : ["--seconds", "10", "--rounds", "3"], results: ["me"] },
  login: { script: "login.mjs", args: quick ? ["--seconds", "5", "--rounds", "1", "--connections", "10"] : ["--seconds", "10", "--rounds", "3"], results: ["login"] },
  storm: { script: "login-storm.mjs", args: quick ? ["--seconds", "5", "--connections", "20", "--login-connections", "10"] : ["--seconds", "10", "--rounds", "3"], results: ["login-storm"] },
  callbacks: { script: "callbacks.mjs", args: quick ? ["--seconds", "3", "--rounds", "1"] : ["--seconds", "10", "--rounds", "3"], results: ["callbacks"] },
  checkout: { script: "checkout.mjs", args: quick ? ["--seconds", "3", "--rounds", "1", "--shoppers", "5"] : ["--seconds", "10", "--rounds", "3"], results: ["checkout"] },
  webhooks: { script: "webhooks.mjs", args: quick ? ["--events", "50", "--rounds", "1"] : ["--events", "250", "--rounds", "3"], results: ["webhooks"] },
  // 1,000,000 requests take over an hour (the logins' hashes set the mix's capacity): with --large only.
  mixed: {
    script: "mixed.mjs",
    args: quick
      ? ["--requests", "20000", "--capacity-seconds", "5", "--alone-seconds", "5"]
      : ["--requests", argv.includes("--large") ? "1000000" : "100000"],
    results: ["mixed"],
  },
  memory: { script: "memory.mjs", args: quick ? ["--requests", "50000", "--step", "20000"] : ["--requests", "200000", "--step", "50000"], results: ["memory"] },
  large: {
    runs: [
      { script: "me.mjs", args: quick ? ["--seconds", "3", "--rounds", "1"] : ["--seconds", "10", "--rounds", "3"] },
      { script: "login.mjs", args: quick ? ["--seconds", "5", "--rounds", "1", "--connections", "10"] : ["--seconds", "10", "--rounds", "3"] },
    ],
    env: { MTEJA_BENCH_SEED_ROWS: seedRows },
    results: ["me-large", "login-large"],
  },
  growth: { script: "growth.mjs", args: ["--rows", growthRows, ...(quick ? ["--seconds", "1", "--runs", "1"] : ["--seconds", "3", "--runs", "3"])], results: ["growth"] },
};

const started = new Date();
const failed = [];
for (const name of allParts.filter((p) => selected.includes(p))) {
  const part = parts[name];
  for (const run of part.runs ?? [part]) {
    console.log(`\n▸ ${name}: node bench/${run.script} ${run.args.join(" ")}${part.env ? ` (${Object.entries(part.env).map(([k, v]) => `${k}=${v}`).join(" ")})` : ""}`);
    const result = spawnSync(process.execPath, [fileURLToPath(new URL(run.script, import.meta.url)), ...run.args], { stdio: "inherit", env: { ...unseededEnv, ...part.env } });
    if (result.status !== 0) failed.push(`${name} (${run.script} exited with ${result.status ?? result.signal})`);
  }
}

/** The results a part wrote during this invocation (older files are not reported). */
function fresh(name) {
  const file = new URL(`./results/${name}.json`, import.meta.url);
  if (!existsSync(file)) return undefined;
  const data = JSON.parse(readFileSync(file, "utf8"));
  return new Date(data.at) >= started ? data : undefined;
}

const checks = [];
for (const name of selected) for (const file of parts[name].results) checks.push(...(fresh(file)?.checks ?? []).map((c) => ({ ...c, what: file.endsWith("-large") ? `[${seedRows} rows] ${c.what}` : c.what })));
// Flatness: the seeded ratios against the unseeded ones of this invocation.
const [me, meLarge, login, loginLarge] = ["me", "me-large", "login", "login-large"].map(fresh);
if (me && meLarge) {
  for (const key of ["ratio", "trpcRatio"]) {
    const kept = meLarge[key] / me[key];
    checks.push({ what: `flatness: /me ${key === "ratio" ? "REST" : "tRPC"} ratio with ${seedRows} rows / without`, measured: kept, goal: ">= 0.90", met: kept >= 0.9 });
  }
}
if (login && loginLarge) {
  for (const row of loginLarge.summary.filter((s) => s.name !== "hand-written")) {
    const unseeded = login.summary.find((s) => s.name === row.name).ratio;
    if (row.ratio === null || !unseeded) continue; // no unseeded ratio to keep (its baseline or Mteja completed no login)
    const kept = row.ratio / unseeded;
    checks.push({ what: `flatness: login ${row.name} ratio with ${seedRows} rows / without`, measured: kept, goal: ">= 0.90", met: kept >= 0.9 });
  }
}

const load = (await import("node:os")).loadavg().map((l) => l.toFixed(1)).join(" ");
console.log(`\n${"=".repeat(100)}\nissue 12 goals — ${quick ? "QUICK run (indicative only)" : "full run"}, ${started.toISOString()} → ${new Date().toISOString()}, load average now ${load}`);
const format = (v) => (typeof v === "number" && !Number.isInteger(v) ? v.toFixed(3) : String(v));
for (const c of checks) console.log(`${c.met ? " met " : " MISS"}  ${c.what.padEnd(78)} ${format(c.measured).padStart(8)}  goal ${c.goal}`);
for (const f of failed) console.log(` FAIL  ${f}`);
console.log(`results: bench/results/*.json`);
process.exit(failed.length ? 1 : 0);
