#!/usr/bin/env node
// Summarises a V8 CPU profile (.cpuprofile from `node --cpu-prof`): the functions with the most self
// time, the functions with the most inclusive time (self + everything they call), and self time by
// package (node_modules/<name>, node: internals, the workspace's own packages, GC, idle).
//
//   node bench/profile-summary.mjs bench/results/<file>.cpuprofile [--top 25] [--focus <function name>] [--from <seconds>]
//
// --focus prints the inclusive time of the callees under every frame of that function (what it spends on);
// --callers prints who calls it (the frame just above its outermost frame on each stack).
import { readFileSync } from "node:fs";

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith("--") && !/^\d+$/.test(a));
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? fallback : args[at + 1];
};
const top = Number(option("top", 25));
const focus = option("focus", undefined);
const callersOf = option("callers", undefined);
// --from s: only the samples taken at least s seconds after the profile started (a server's start left out).
const fromMicros = Number(option("from", 0)) * 1_000_000;
if (!file) {
  console.error("usage: node bench/profile-summary.mjs <file.cpuprofile> [--top 25] [--focus name]");
  process.exit(2);
}

const profile = JSON.parse(readFileSync(file, "utf8"));
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

// Sample time per node: timeDeltas[i] is the time before sample i; attribute it to that sample.
const selfTime = new Map();
let elapsed = 0;
for (let i = 0; i < profile.samples.length; i++) {
  elapsed += profile.timeDeltas[i] ?? 0;
  if (elapsed < fromMicros) continue;
  const id = profile.samples[i];
  selfTime.set(id, (selfTime.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
}
const total = [...selfTime.values()].reduce((a, b) => a + b, 0);
const idleIds = new Set(profile.nodes.filter((n) => n.callFrame.functionName === "(idle)").map((n) => n.id));
const idle = [...idleIds].reduce((s, id) => s + (selfTime.get(id) ?? 0), 0);
const busy = total - idle;

function packageOf(url) {
  if (!url) return "(native/vm)";
  if (url.startsWith("node:")) return "node:internal";
  const pnpm = /node_modules\/\.pnpm\/[^/]+\/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pnpm) return pnpm[1];
  const plain = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (plain) return plain[1];
  const own = /\/(packages|apps|bench)\/([^/]+)\//.exec(url);
  if (own) return `${own[1]}/${own[2]}`;
  return url;
}

const label = (n) => {
  const f = n.callFrame;
  const where = f.url ? `${f.url.replace(/^.*node_modules\/\.pnpm\/[^/]+\/node_modules\//, "").replace(/^file:\/\/.*?\/(packages|apps|bench)\//, "$1/")}:${f.lineNumber + 1}` : "";
  return `${f.functionName || "(anonymous)"} ${where}`.trim();
};
const pct = (t) => `${((100 * t) / busy).toFixed(1).padStart(5)} %`;

// Self time by function (merged over call sites).
const selfByFn = new Map();
for (const [id, t] of selfTime) {
  if (idleIds.has(id)) continue;
  const key = label(nodes.get(id));
  selfByFn.set(key, (selfByFn.get(key) ?? 0) + t);
}

// Inclusive time by function: each sample counts once for every distinct function on its stack.
const inclusiveByFn = new Map();
const byPackage = new Map();
for (const [id, t] of selfTime) {
  if (idleIds.has(id)) continue;
  const seen = new Set();
  for (let at = id; at !== undefined; at = parent.get(at)) {
    const key = label(nodes.get(at));
    if (!seen.has(key)) {
      seen.add(key);
      inclusiveByFn.set(key, (inclusiveByFn.get(key) ?? 0) + t);
    }
  }
  const pkg = packageOf(nodes.get(id).callFrame.url);
  const name = nodes.get(id).callFrame.functionName;
  const bucket = name === "(garbage collector)" ? "(gc)" : name === "(program)" ? "(program)" : pkg;
  byPackage.set(bucket, (byPackage.get(bucket) ?? 0) + t);
}

const print = (title, map, n = top) => {
  console.log(`\n${title}`);
  for (const [key, t] of [...map].sort((a, b) => b[1] - a[1]).slice(0, n)) console.log(`${pct(t)}  ${key}`);
};

console.log(`${file}\nsampled ${(total / 1e6).toFixed(1)} s, busy ${(busy / 1e6).toFixed(1)} s (${((100 * busy) / total).toFixed(0)} %), shares below are of busy time`);
print("self time by package", byPackage, 30);
print("self time by function", selfByFn);
print("inclusive time by function", inclusiveByFn, top * 2);

/**
 * Busy time of the samples whose stack holds `name`, keyed by the frame next to its outermost frame:
 * the callee (what it spends its time on) or the caller (who calls it).
 */
function around(name, side) {
  const keyed = new Map();
  let inside = 0;
  for (const [id, t] of selfTime) {
    if (idleIds.has(id)) continue;
    const chain = []; // leaf first
    for (let at = id; at !== undefined; at = parent.get(at)) chain.push(at);
    const i = chain.findLastIndex((at) => nodes.get(at).callFrame.functionName === name);
    if (i === -1) continue;
    inside += t;
    const next = side === "callee" ? chain[i - 1] : chain[i + 1];
    const key = next === undefined ? (side === "callee" ? "(self)" : "(root)") : label(nodes.get(next));
    keyed.set(key, (keyed.get(key) ?? 0) + t);
  }
  return { keyed, inside };
}

if (focus) {
  const { keyed, inside } = around(focus, "callee");
  print(`under ${focus} (${pct(inside).trim()} of busy)`, keyed, top);
}
if (callersOf) {
  const { keyed, inside } = around(callersOf, "caller");
  print(`callers of ${callersOf} (${pct(inside).trim()} of busy)`, keyed, top);
}
