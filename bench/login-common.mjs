// What bench/login.mjs and bench/login-storm.mjs share: a scratch PostgreSQL database, servers started as
// separate processes (bench/login-server.mjs) pinned to core 0 while this process and its load generator
// run on core 1 (when taskset exists and there are 2 cores or more), a registered user, and autocannon.
import { createScratchDatabase } from "@mteja/db";
import autocannon from "autocannon";
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { seedRows, seedUsersAndSessions } from "./seed.mjs";

export { args } from "./args.mjs";
const adminUrl = process.env.MTEJA_BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const serverEntry = fileURLToPath(new URL("./login-server.mjs", import.meta.url));
const pinned = availableParallelism() >= 2 && spawnSync("taskset", ["-V"]).status === 0;
if (pinned) spawnSync("taskset", ["-p", "-c", "1", String(process.pid)], { stdio: "ignore" });
// Every server compared starts with the node flags docs/deployment.md gives an instance on one core.
const serverFlags = (process.env.SERVER_NODE_FLAGS ?? (pinned ? "--single-threaded-gc" : "")).split(" ").filter(Boolean);
export const conditions =
  (pinned ? "server pinned to core 0 (argon2 included), load generator on core 1" : "not pinned (no taskset or one core)") +
  (serverFlags.length ? `; servers started with ${serverFlags.join(" ")}` : "");

export const user = { email: "bench@example.com", password: "bench-password-123" };
export const tenantHeaders = { "content-type": "application/json", "x-tenant-id": "default" };

/** The servers compared: the hand-written one and Mteja with each PASSWORD_HASHER. */
export const targets = [
  { name: "hand-written", target: "hand-written" },
  { name: "mteja threads", target: "mteja", hasher: "threads" },
  { name: "mteja processes", target: "mteja", hasher: "processes" },
];

/**
 * Runs `measure(url, name)` on each server in turn (`servers`: `targets` unless given), each started alone,
 * for every round; returns what it answered.
 */
export async function eachServer(rounds, measure, servers = targets, { after } = {}) {
  const db = await prepare();
  const results = [];
  try {
    for (let round = 1; round <= rounds; round++) {
      // Every other round in the reverse order: whoever runs second meets what the first left behind (a
      // warmer machine, PostgreSQL's autovacuum of the rows it wrote), so no server is always second.
      for (const t of round % 2 === 1 ? servers : [...servers].reverse()) {
        const server = await startServer({ ...t, database: db.database, key: db.key });
        try {
          results.push({ round, name: t.name, ...(await measure(server.url, t.name, { server, db, round })) });
        } finally {
          await server.stop();
        }
      }
    }
    // `after`: more work on the same database before it is dropped (the callback storm), given a start of any server.
    if (after) await after({ db, start: (t) => startServer({ ...t, database: db.database, key: db.key }) });
  } finally {
    await db.drop();
  }
  return results;
}

export function writeResults(name, data) {
  mkdirSync(new URL("./results/", import.meta.url), { recursive: true });
  writeFileSync(new URL(`./results/${name}${seedRows ? "-large" : ""}.json`, import.meta.url), JSON.stringify({ at: new Date().toISOString(), conditions, seedRows, ...data }, null, 2));
}

/** A scratch database, migrated by a first Mteja server, with the bench user registered (its id answered). */
export async function prepare() {
  const scratch = await createScratchDatabase(adminUrl, "mteja_bench");
  const key = randomBytes(32).toString("hex");
  const first = await startServer({ target: "mteja", hasher: "threads", database: scratch.url, key });
  const registered = await fetch(`${first.url}/api/v1/auth/register`, { method: "POST", headers: tenantHeaders, body: JSON.stringify({ name: "Bench User", ...user }) });
  if (registered.status !== 201) throw new Error(`register answered ${registered.status}`);
  const userId = (await registered.json()).data.user.id;
  const seedSeconds = await seedUsersAndSessions(scratch.url, seedRows);
  if (seedRows) console.log(`seeded ${seedRows} users and sessions in ${seedSeconds.toFixed(0)} s`);
  await first.stop();
  return { database: scratch.url, key, userId, drop: () => scratch.drop() };
}

/**
 * Starts bench/login-server.mjs (pinned to core 0) and resolves once it listens. `nodeOptions`: more
 * options for the server's node (bench/memory.mjs passes --expose-gc, for `collect()`).
 */
export function startServer({ target, hasher = "processes", database, key, callbackSecret, checkout, settings, deliveries, env = {}, nodeOptions = [] }) {
  const command = pinned ? "taskset" : process.execPath;
  const argv = [
    ...(pinned ? ["-c", "0", process.execPath] : []),
    ...serverFlags,
    ...nodeOptions,
    ...(process.env.SERVER_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.SERVER_CPU_PROF}`] : []),
    serverEntry, "--target", target, "--hasher", hasher, "--database", database, "--key", key,
    ...(callbackSecret ? ["--callback-secret", callbackSecret] : []),
    ...(checkout ? ["--checkout", JSON.stringify(checkout)] : []),
    ...(settings ? ["--settings", JSON.stringify(settings)] : []),
    ...(deliveries ? ["--deliveries", JSON.stringify(deliveries)] : []),
  ];
  const child = spawn(command, argv, { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, ...env } });
  let output = "";
  // Asking the server: a signal, answered by the next line of its output that matches `pattern`.
  const asked = [];
  let pending = "";
  child.stdout.on("data", (chunk) => {
    output += chunk;
    const lines = (pending + chunk).split("\n");
    pending = lines.pop();
    for (const line of lines) {
      const at = asked.findIndex(({ pattern }) => pattern.test(line));
      if (at >= 0) {
        const [{ pattern, resolve }] = asked.splice(at, 1);
        resolve(pattern.exec(line));
      }
    }
  });
  const ask = (signal, pattern) => new Promise((resolve) => {
    asked.push({ pattern, resolve });
    child.kill(signal);
  });
  /** A full collection in the server (started with --expose-gc); resolves once it is done. */
  const collect = () => ask("SIGUSR2", /^collected$/).then(() => undefined);
  /** With env BENCH_WATCH=1: what the server saw since the last reading (bench/login-server.mjs, watchServer). */
  const watched = () => ask("SIGHUP", /^watched (.+)$/).then(([, json]) => JSON.parse(json));
  return new Promise((resolve, reject) => {
    child.stdout.on("data", () => {
      const url = /listening (\S+)/.exec(output)?.[1];
      if (url) resolve({ url, pid: child.pid, collect, watched, cpuMs: () => cpuMsOf(child.pid), stop: () => stop(child) });
    });
    child.once("exit", (code) => reject(new Error(`${target} server exited with ${code} before listening`)));
  });
}

/**
 * CPU time (user and system) a process has used so far, in ms, from /proc (0 where there is none); with
 * `endedChildren`, also what its children that ended (and were waited for) used.
 */
export function cpuMsOf(pid, { endedChildren = false } = {}) {
  try {
    const fields = statFieldsOf(pid);
    // utime and stime are fields 14 and 15 of stat, cutime and cstime 16 and 17, in clock ticks (100 per second on Linux).
    const ticks = Number(fields[11]) + Number(fields[12]) + (endedChildren ? Number(fields[13]) + Number(fields[14]) : 0);
    return (ticks * 1000) / 100;
  } catch {
    return 0;
  }
}

/**
 * CPU used so far by PostgreSQL (its backends, where the statements run), in ms: every postgres process's
 * own, and what the postmaster's ended children used (a backend that closed takes its CPU with it).
 */
export function databaseCpuMs() {
  return processesOf(isPostgres).reduce((sum, pid) => sum + cpuMsOf(pid, { endedChildren: true }), 0);
}

/** CPU used so far by the running children of `parent` (a server's hashing processes), in ms. */
export function childrenCpuMs(parent) {
  return processesOf(childOf(parent)).reduce((sum, pid) => sum + cpuMsOf(pid), 0);
}

/**
 * How long each part has waited for a core so far, in ms by process (/proc's schedstat: time runnable but
 * not running): the server's event loop (its main thread), its hashing children, PostgreSQL's processes.
 * Where that wait grows under load, a request's latency is the scheduler's queue, not its own work.
 * `waitedBetween` sums what processes alive at both readings waited in between.
 */
export function runQueueWaitMs(server) {
  const waitOf = (pid, tid) => Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[1]) / 1e6;
  const byProcess = (pids, threadsOf) => {
    const waits = new Map();
    for (const pid of pids) {
      try {
        waits.set(pid, threadsOf(pid).reduce((sum, tid) => sum + waitOf(pid, tid), 0));
      } catch {
        // the process ended meanwhile
      }
    }
    return waits;
  };
  const allThreads = (pid) => readdirSync(`/proc/${pid}/task`);
  return {
    loop: byProcess([String(server)], (pid) => [pid]),
    hashing: byProcess(processesOf(childOf(server)), allThreads),
    database: byProcess(processesOf(isPostgres), allThreads),
  };
}

/** ms each part of two `runQueueWaitMs` readings waited in between (only processes in both count). */
export function waitedBetween(before, after) {
  const sum = (part) => [...after[part]].reduce((total, [pid, ms]) => total + (before[part].has(pid) ? ms - before[part].get(pid) : 0), 0);
  return Object.fromEntries(Object.keys(after).map((part) => [part, sum(part)]));
}

const isPostgres = (pid) => readFileSync(`/proc/${pid}/comm`, "utf8").startsWith("postgres");
// ppid is field 4 of stat.
const childOf = (parent) => (pid) => statFieldsOf(pid)[1] === String(parent);

/** /proc/<pid>/stat's fields after the command's name (field 3 on), which may itself hold spaces. */
function statFieldsOf(pid) {
  return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
}

function processesOf(wanted) {
  return readdirSync("/proc").filter((pid) => {
    if (!/^\d+$/.test(pid)) return false;
    try {
      return wanted(pid);
    } catch {
      return false; // the process ended meanwhile
    }
  });
}

function stop(child) {
  return new Promise((resolve) => {
    child.once("exit", resolve);
    child.kill("SIGTERM");
  });
}

export async function signIn(url) {
  const response = await fetch(`${url}/api/v1/auth/login`, { method: "POST", headers: tenantHeaders, body: JSON.stringify(user) });
  if (response.status !== 200) throw new Error(`${url} login answered ${response.status}`);
  return (await response.json()).data.access_token;
}

export function load(options) {
  return new Promise((resolve, reject) => autocannon(options, (error, result) => (error ? reject(error) : resolve(result))));
}

/**
 * Logins from `connections` clients for `seconds`. The result's `shed` counts the 429 answers and those
 * of them without a usable Retry-After (whole seconds, at least 1): shedding must tell clients when to come back.
 */
export async function loginLoad(url, { connections, seconds }) {
  const shed = { count: 0, withoutRetryAfter: 0, maxRetryAfter: 0 };
  const onResponse = (status, _body, _context, headers) => {
    if (status !== 429) return;
    shed.count++;
    const retryAfter = Number(headers?.["retry-after"] ?? headers?.["Retry-After"]);
    if (!Number.isInteger(retryAfter) || retryAfter < 1) shed.withoutRetryAfter++;
    else shed.maxRetryAfter = Math.max(shed.maxRetryAfter, retryAfter);
  };
  const result = await load({
    url: `${url}/api/v1/auth/login`,
    requests: [{ method: "POST", headers: tenantHeaders, body: JSON.stringify(user), onResponse }],
    connections,
    duration: seconds,
    timeout: 30,
  });
  return Object.assign(result, { shed });
}

export function meLoad(url, token, { connections, seconds, path = "/api/v1/auth/me" }) {
  return load({ url: `${url}${path}`, headers: { authorization: `Bearer ${token}`, "x-tenant-id": "default" }, connections, duration: seconds });
}

/** The middle value (of an odd count; the upper middle of an even one). */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Counts by status class, so shed logins (429) are told apart from failures. */
export function statuses(result) {
  return { "2xx": result["2xx"], "429": result.statusCodeStats?.["429"]?.count ?? 0, other: result.non2xx - (result.statusCodeStats?.["429"]?.count ?? 0), errors: result.errors, timeouts: result.timeouts };
}
