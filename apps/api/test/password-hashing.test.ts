/**
 * Where argon2id runs (apps/api/src/runtime/password-hashing): the pool of hashing processes on its own
 * (a dead child fails its hashes at once and is replaced, queued hashes run at nice 10 and the others at
 * the service's own priority, close ends them), then sign-ins over HTTP with each PASSWORD_HASHER, with a
 * hashing process killed mid-login, and shed with 429 once the expected wait passes PASSWORD_HASH_MAX_WAIT_MS.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { createProcessHashing, type ProcessHashing } from "../src/runtime/password-hashing/process-pool.js";
import { createPasswordHashing } from "../src/runtime/password-hashing/index.js";
import { readSettings } from "../src/settings.js";
import { registerUser, RestClient, startTestApp, type TestApp } from "./support/app.js";
import { skipDatabaseAgnostic, target } from "./support/database.js";

/** The fields of /proc/<pid>/stat after the command name: [0] is the state, [1] the parent, [16] the nice value. */
function statOf(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

const alive = (pid: number) => {
  const state = statOf(pid)?.[0];
  return state !== undefined && state !== "Z";
};

/** The hashing processes this test process started, found the way an operator would: by parent and command line. */
function hashingChildren(): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      if (statOf(pid)?.[1] !== String(process.pid)) return false;
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("argon2-child");
      } catch {
        return false;
      }
    });
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

describe.skipIf(target !== "embedded")("the pool of hashing processes", () => {
  let pool: ProcessHashing | undefined;
  const warnings: object[] = [];
  afterEach(async () => pool?.close());

  it("hashes and verifies in children at nice 10; an unreadable hash matches nothing", async () => {
    pool = createProcessHashing({ size: 2, logger: { warn: (obj) => warnings.push(obj) } });
    const hash = await pool.hash("correct horse");
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=19456,p=1,t=2\$/);
    expect(await pool.verify(hash, "correct horse")).toBe(true);
    expect(await pool.verify(hash, "wrong horse")).toBe(false);
    expect(await pool.verify("not-a-hash", "correct horse")).toBe(false);
    const pids = pool.pids();
    expect(pids.length).toBeGreaterThanOrEqual(1);
    for (const pid of pids) expect(statOf(pid)?.[16]).toBe("10");
  });

  it("runs a hash that started at once in a child at the service's own priority, and one that waited in line at nice 10", async () => {
    pool = createProcessHashing({ size: 1, logger: { warn: (obj) => warnings.push(obj) } });
    const atOnce = await pool.hash("an ordinary sign-in", { queued: false });
    const [prompt] = pool.pids();
    expect(statOf(prompt!)?.[16]).toBe("0");
    expect(await pool.verify(atOnce, "an ordinary sign-in", { queued: true })).toBe(true);
    const queued = pool.pids().filter((pid) => pid !== prompt);
    expect(queued).toHaveLength(1);
    expect(statOf(queued[0]!)?.[16]).toBe("10");
    // Each kind keeps its own child.
    await pool.hash("another ordinary sign-in", { queued: false });
    expect(pool.pids()).toEqual([prompt, queued[0]]);
  });

  it("keeps one set of children when queued hashes run at niceness 0 too", async () => {
    pool = createProcessHashing({ size: 1, niceness: 0, logger: { warn: (obj) => warnings.push(obj) } });
    const hash = await pool.hash("an ordinary sign-in", { queued: false });
    expect(await pool.verify(hash, "an ordinary sign-in", { queued: true })).toBe(true);
    const pids = pool.pids();
    expect(pids).toHaveLength(1);
    expect(statOf(pids[0]!)?.[16]).toBe("0");
  });

  it("fails the hashes of a child that dies at once, and starts another for the next hash", async () => {
    pool = createProcessHashing({ size: 1, logger: { warn: (obj) => warnings.push(obj) } });
    await pool.hash("warm up");
    const [first] = pool.pids();
    const inFlight = pool.hash("being hashed when the child dies");
    process.kill(first!, "SIGKILL");
    await expect(within(inFlight, 5_000, "the hash of a killed child")).rejects.toThrow(/password hashing process exited \(SIGKILL\)/);
    expect(warnings).toContainEqual(expect.objectContaining({ pid: first }));

    const hash = await pool.hash("after the crash");
    expect(await pool.verify(hash, "after the crash")).toBe(true);
    expect(pool.pids()).toHaveLength(1);
    expect(pool.pids()[0]).not.toBe(first);
  });

  it("kills a child that does not answer in time, failing its hashes, and goes on with a new one", async () => {
    // Long enough for a new nice-10 child to start and hash on a loaded CI machine (1 s was not).
    pool = createProcessHashing({ size: 1, logger: { warn: (obj) => warnings.push(obj) }, answerTimeoutMs: 5_000 });
    await pool.hash("warm up");
    const [stuck] = pool.pids();
    process.kill(stuck!, "SIGSTOP");
    await expect(within(pool.hash("never answered"), 20_000, "the hash of a stopped child")).rejects.toThrow(/exited \(SIGKILL\)/);
    expect(alive(stuck!)).toBe(false);
    expect(await pool.verify(await pool.hash("after"), "after")).toBe(true);
  });

  it("ends its children on close, and refuses hashes afterwards", async () => {
    pool = createProcessHashing({ size: 2, logger: { warn: (obj) => warnings.push(obj) } });
    await Promise.all([pool.hash("a"), pool.hash("b")]);
    const pids = pool.pids();
    expect(pids).toHaveLength(2);
    await pool.close();
    for (const pid of pids) expect(alive(pid)).toBe(false);
    await expect(pool.hash("c")).rejects.toThrow(/closed/);
  });
});

describe("the default", () => {
  it("hashes in the nice-10 processes unless PASSWORD_HASHER says threads (the storm measurements in docs/performance.md)", () => {
    expect(readSettings({}).PASSWORD_HASHER).toBe("processes");
    expect(readSettings({ PASSWORD_HASHER: "threads" }).PASSWORD_HASHER).toBe("threads");
  });

  it("runs the hashing processes at PASSWORD_HASH_NICENESS (default 10, at most 19: the share of a busy core a login storm may take from reads)", async () => {
    expect(readSettings({}).PASSWORD_HASH_NICENESS).toBe(10);
    const settings = readSettings({ PASSWORD_HASH_NICENESS: "19" });
    expect(() => readSettings({ PASSWORD_HASH_NICENESS: "20" })).toThrow(/PASSWORD_HASH_NICENESS/);
    const hashing = createPasswordHashing({ ...settings, PASSWORD_HASH_CONCURRENCY: 1 }, { warn: () => undefined });
    try {
      await hashing.hash("correct horse");
      const pids = (hashing as ProcessHashing).pids();
      expect(pids.length).toBe(1);
      expect(statOf(pids[0]!)?.[16]).toBe("19");
    } finally {
      await hashing.close();
    }
  });

  it("hashes as many passwords at once as there are cores the service may run on: one when pinned to one core", () => {
    const pid = String(process.pid);
    const mask = /affinity mask: ([0-9a-f]+)/.exec(execFileSync("taskset", ["-p", pid], { encoding: "utf8" }))?.[1];
    if (!mask) throw new Error("taskset printed no affinity mask");
    execFileSync("taskset", ["-p", "1", pid], { stdio: "ignore" }); // this process's main thread on core 0 only
    try {
      expect(readSettings({}).PASSWORD_HASH_CONCURRENCY).toBe(1);
    } finally {
      execFileSync("taskset", ["-p", mask, pid], { stdio: "ignore" });
    }
    expect(readSettings({}).PASSWORD_HASH_CONCURRENCY).toBe(Math.min(16, availableParallelism()));
    expect(readSettings({ PASSWORD_HASH_CONCURRENCY: "3" }).PASSWORD_HASH_CONCURRENCY).toBe(3);
  });
});

// Where the hashing runs has nothing to do with the database: once, on PostgreSQL where it answers.
describe.skipIf(skipDatabaseAgnostic)("sign-ins and where the hashing runs", () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  async function signIn(c: RestClient, user: { email: string; password: string }) {
    return c.post("/api/v1/auth/login", { email: user.email, password: user.password });
  }

  for (const hasher of ["processes", "threads"] as const) {
    it(`registers and signs in with PASSWORD_HASHER=${hasher}, and refuses a wrong password or an unknown email`, async () => {
      t = await startTestApp({ PASSWORD_HASHER: hasher });
      const c = new RestClient(t.url);
      const user = await registerUser(c);
      expect((await signIn(c, user)).status).toBe(200);
      expect((await signIn(c, { ...user, password: "not the password" })).status).toBe(401);
      expect((await signIn(c, { ...user, email: "nobody@example.com" })).status).toBe(401);
      expect(hashingChildren().length > 0).toBe(hasher === "processes");
    });
  }

  it("answers every sign-in when the hashing processes are killed under them, and signs in again afterwards", async () => {
    t = await startTestApp({ PASSWORD_HASHER: "processes", PASSWORD_HASH_CONCURRENCY: "2" });
    const c = new RestClient(t.url);
    const user = await registerUser(c);
    const logins = Array.from({ length: 4 }, () => signIn(new RestClient(t!.url), user));
    await new Promise((resolve) => setTimeout(resolve, 30));
    for (const pid of hashingChildren()) process.kill(pid, "SIGKILL");
    const answers = await within(Promise.all(logins), 15_000, "sign-ins during the crash");
    for (const answer of answers) expect([200, 500]).toContain(answer.status);
    expect((await signIn(c, user)).status).toBe(200);
  });

  it("sheds sign-ins with 429 RATE_LIMITED and Retry-After once their expected wait passes PASSWORD_HASH_MAX_WAIT_MS", async () => {
    t = await startTestApp({ PASSWORD_HASH_CONCURRENCY: "1", PASSWORD_HASH_MAX_WAIT_MS: "0", PASSWORD_HASH_SHED_PAUSE_MS: "0" });
    const c = new RestClient(t.url);
    const user = await registerUser(c);
    const answers = await Promise.all(Array.from({ length: 6 }, () => signIn(new RestClient(t!.url), user)));
    const shed = answers.filter((answer) => answer.status === 429);
    expect(answers.some((answer) => answer.status === 200)).toBe(true);
    expect(shed.length).toBeGreaterThan(0);
    for (const answer of shed) {
      expect(answer.body.error.code).toBe("RATE_LIMITED");
      expect(Number(answer.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    }
  });

  it("holds a shed sign-in for PASSWORD_HASH_SHED_PAUSE_MS before its 429, so a client retrying at once cannot spin", async () => {
    t = await startTestApp({ PASSWORD_HASH_CONCURRENCY: "1", PASSWORD_HASH_MAX_WAIT_MS: "0", PASSWORD_HASH_SHED_PAUSE_MS: "400" });
    const user = await registerUser(new RestClient(t.url));
    const timed = async () => {
      const started = performance.now();
      const answer = await signIn(new RestClient(t!.url), user);
      return { status: answer.status, ms: performance.now() - started, retryAfter: answer.headers.get("retry-after") };
    };
    const answers = await Promise.all(Array.from({ length: 6 }, timed));
    const shed = answers.filter((answer) => answer.status === 429);
    expect(shed.length).toBeGreaterThan(0);
    for (const answer of shed) {
      expect(answer.ms).toBeGreaterThanOrEqual(390);
      expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
    }
  });
});
