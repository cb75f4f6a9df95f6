#!/usr/bin/env node
// What is still reachable of past /me requests while the load runs? One target in this process under
// load from an autocannon process on the other core; halfway through, a heap snapshot (which collects
// what is unreachable first), summarised as the number of live objects of a few per-request kinds.
// Far more live IncomingMessages than connections means something keeps finished requests reachable.
//
//   node bench/retained.mjs [--target rest|trpc|baseline] [--seconds 6] [--connections 50]
import { readFileSync, rmSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import v8 from "node:v8";
import { args } from "./args.mjs";
import { load as loadFrom, mePaths, pinServerCore, startBaseline, startMteja } from "./targets.mjs";

const target = args.target ?? "trpc";
const seconds = Number(args.seconds ?? 6);
const connections = Number(args.connections ?? 50);
const kinds = ["IncomingMessage", "ServerResponse", "Socket", "AbortController", "Request", "Headers", "Promise"];

const mteja = await startMteja();
const baseline = target === "baseline" ? await startBaseline(mteja) : undefined;
const url = `${(baseline ?? mteja).base}${mePaths[target]}`;
pinServerCore();
const load = loadFrom(url, mteja.headers, { connections, seconds });
await sleep((seconds * 1000) / 2);
const file = v8.writeHeapSnapshot();
await load;
const snapshot = JSON.parse(readFileSync(file, "utf8"));
rmSync(file);
const { node_fields: fields, node_types: [types] } = snapshot.snapshot.meta;
const width = fields.length;
const at = { type: fields.indexOf("type"), name: fields.indexOf("name") };
const counts = new Map(kinds.map((kind) => [kind, 0]));
for (let i = 0; i < snapshot.nodes.length; i += width) {
  if (types[snapshot.nodes[i + at.type]] !== "object") continue;
  const name = snapshot.strings[snapshot.nodes[i + at.name]];
  if (counts.has(name)) counts.set(name, counts.get(name) + 1);
}
console.log(`${target}, ${connections} connections, snapshot at ${seconds / 2} s: ${[...counts].map(([kind, n]) => `${kind} ${n}`).join(", ")}`);
await baseline?.close();
await mteja.close();
