import { describe, expect, it } from "vitest";
import { createAdmission, createPasswordHasher, maxHeldSheds, type PasswordHashing } from "../../src/auth/passwords.js";
import { DomainError } from "../../src/shared/errors.js";
import { fakeClock } from "../support/fake-ports.js";

/** Hashing that finishes only when the test says so, on a clock the test moves. */
function heldHashing() {
  const pending: Array<{ password: string; hash?: string; finish: () => void }> = [];
  const hold = <T>(entry: { password: string; hash?: string }, value: () => T) =>
    new Promise<T>((resolve) => pending.push({ ...entry, finish: () => resolve(value()) }));
  const hashing: PasswordHashing = {
    hash: (password) => hold({ password }, () => `hashed:${password}`),
    verify: (hash, password) => hold({ password, hash }, () => hash === `hashed:${password}`),
  };
  return { hashing, pending };
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

async function shedError(promise: Promise<unknown>): Promise<DomainError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DomainError);
  return error as DomainError;
}

describe("admission by expected wait", () => {
  /** Runs `count` tasks of `ms` each, one after the other, so the mean hash time is `ms`. */
  async function teach(admit: ReturnType<typeof createAdmission>, clock: ReturnType<typeof fakeClock>, ms: number, count = 1) {
    for (let i = 0; i < count; i++) await admit(async () => clock.advance(ms));
  }

  it("admits while place in line × mean hash time ÷ concurrency stays within the budget, sheds the next with Retry-After", async () => {
    const clock = fakeClock();
    const admit = createAdmission({ clock, concurrency: 2, maxWaitMs: 4_000, shedPauseMs: 0 });
    await teach(admit, clock, 1_000);

    const never = () => new Promise<never>(() => {});
    admit(never);
    admit(never); // both slots busy
    // In line: the k-th waits about k × 1000 / 2 ms, so 8 fit in 4 s.
    for (let k = 1; k <= 8; k++) void admit(never);
    const shed = await shedError(admit(never));
    expect(shed.code).toBe("RATE_LIMITED");
    // The 9th would have waited 4.5 s.
    expect(shed.retryAfter).toBe(5);
  });

  it("learns the hash time: slower hashes shorten the line it admits", async () => {
    const clock = fakeClock();
    const admit = createAdmission({ clock, concurrency: 1, maxWaitMs: 1_000, shedPauseMs: 0 });
    await teach(admit, clock, 100);
    const never = () => new Promise<never>(() => {});
    void admit(never);
    for (let k = 1; k <= 10; k++) void admit(never); // 10 × 100 ms = 1 s: all admitted
    await shedError(admit(never));

    const slower = createAdmission({ clock, concurrency: 1, maxWaitMs: 1_000, shedPauseMs: 0 });
    await teach(slower, clock, 100);
    await teach(slower, clock, 600, 10); // the mean moves towards 600 ms
    void slower(never);
    void slower(never);
    const shed = await shedError(slower(never));
    expect(shed.retryAfter).toBeGreaterThanOrEqual(1);
  });

  it("always admits a hash when a slot is free, whatever the budget", async () => {
    const clock = fakeClock();
    const admit = createAdmission({ clock, concurrency: 1, maxWaitMs: 0, shedPauseMs: 0 });
    await teach(admit, clock, 10_000);
    await expect(admit(async () => "ran")).resolves.toBe("ran");
  });

  it("hands a finished slot to the next in line, and a failed hash frees its slot too", async () => {
    const clock = fakeClock();
    const admit = createAdmission({ clock, concurrency: 1, maxWaitMs: 60_000, shedPauseMs: 0 });
    const order: string[] = [];
    let fail!: (error: Error) => void;
    const first = admit(() => new Promise((_, reject) => (fail = reject)));
    const second = admit(async () => order.push("second"));
    await settle();
    expect(order).toEqual([]);
    fail(new Error("the hashing process exited"));
    await expect(first).rejects.toThrow("the hashing process exited");
    await second;
    expect(order).toEqual(["second"]);
  });
});

describe("a hash's turn", () => {
  it("tells the hashing whether a hash waited in line: at once while a slot is free, queued behind others", async () => {
    const clock = fakeClock();
    const admit = createAdmission({ clock, concurrency: 1, maxWaitMs: 60_000, shedPauseMs: 0 });
    const turns: Array<{ name: string; queued: boolean }> = [];
    let finishFirst!: () => void;
    const first = admit((turn) => (turns.push({ name: "first", ...turn }), new Promise<void>((resolve) => (finishFirst = resolve))));
    const second = admit(async (turn) => void turns.push({ name: "second", ...turn }));
    await settle();
    expect(turns).toEqual([{ name: "first", queued: false }]);
    finishFirst();
    await Promise.all([first, second]);
    await admit(async (turn) => void turns.push({ name: "third", ...turn }));
    expect(turns).toEqual([
      { name: "first", queued: false },
      { name: "second", queued: true },
      { name: "third", queued: false },
    ]);
  });

  it("passes the turn to the hashing for hashes, verifications and the decoy", async () => {
    const clock = fakeClock();
    const turns: Array<{ op: string; queued: boolean | undefined }> = [];
    const hashing: PasswordHashing = {
      hash: async (password, turn) => (turns.push({ op: "hash", queued: turn?.queued }), `hashed:${password}`),
      verify: async (hash, password, turn) => (turns.push({ op: "verify", queued: turn?.queued }), hash === `hashed:${password}`),
    };
    const hasher = await createPasswordHasher({ hashing, clock, concurrency: 1, maxWaitMs: 60_000, shedPauseMs: 0 });
    await hasher.verify(await hasher.hash("pw"), "pw");
    expect(turns).toEqual([
      { op: "hash", queued: false }, // the decoy
      { op: "hash", queued: false },
      { op: "verify", queued: false },
    ]);
  });
});

describe("the password hasher", () => {
  it("verifies an unknown user against a decoy made like a real hash, and answers false", async () => {
    const clock = fakeClock();
    const { hashing, pending } = heldHashing();
    const created = createPasswordHasher({ hashing, clock, concurrency: 2, maxWaitMs: 4_000, shedPauseMs: 0 });
    await settle();
    pending.shift()!.finish(); // the decoy
    const hasher = await created;

    const unknown = hasher.verify(undefined, "decoy-password-for-unknown-users");
    await settle();
    const decoyCheck = pending.shift()!;
    expect(decoyCheck.hash).toBe("hashed:decoy-password-for-unknown-users");
    decoyCheck.finish();
    expect(await unknown).toBe(false);

    const known = hasher.verify("hashed:right", "right");
    await settle();
    pending.shift()!.finish();
    expect(await known).toBe(true);
  });

  it("lets a hashing failure through instead of answering 'wrong password'", async () => {
    const clock = fakeClock();
    const broken: PasswordHashing = {
      hash: async () => "hashed",
      verify: async () => {
        throw new Error("the hashing process exited");
      },
    };
    const hasher = await createPasswordHasher({ hashing: broken, clock, concurrency: 1, maxWaitMs: 4_000, shedPauseMs: 0 });
    await expect(hasher.verify("hashed", "pw")).rejects.toThrow("the hashing process exited");
  });

  it("sheds sign-ins with RATE_LIMITED once the expected wait passes the budget", async () => {
    const clock = fakeClock();
    const { hashing, pending } = heldHashing();
    const created = createPasswordHasher({ hashing, clock, concurrency: 1, maxWaitMs: 100, shedPauseMs: 0 });
    await settle();
    clock.advance(60);
    pending.shift()!.finish(); // the decoy took 60 ms
    const hasher = await created;

    await hasher.assertAdmits(); // a free slot
    void hasher.verify("hashed:a", "a"); // running
    await hasher.assertAdmits(); // would wait ~60 ms
    void hasher.verify("hashed:b", "b"); // waits ~60 ms
    // The check a login makes first answers what the next verify answers.
    const asked = await shedError(Promise.resolve().then(() => hasher.assertAdmits()));
    expect([asked.code, asked.retryAfter]).toEqual(["RATE_LIMITED", 1]);
    const shed = await shedError(hasher.verify("hashed:c", "c")); // would wait ~120 ms
    expect(shed.code).toBe("RATE_LIMITED");
    expect(shed.retryAfter).toBe(1);
  });
});

describe("the shed pause", () => {
  /** An admission with its one slot held by a hash that never ends, after one of `ms`: the next is shed. */
  async function saturated(clock: Parameters<typeof createAdmission>[0]["clock"] & { advance?(ms: number): void }, shedPauseMs: number, ms = 1_000) {
    const admit = createAdmission({ clock, concurrency: 1, maxWaitMs: 0, shedPauseMs });
    await admit(async () => clock.advance?.(ms));
    void admit(() => new Promise<never>(() => {}));
    return admit;
  }

  it("holds a shed request for the pause before answering RATE_LIMITED, so a client retrying at once cannot spin", async () => {
    const clock = fakeClock();
    const admit = await saturated(clock, 1_000, 3_000);
    const shed = await shedError(admit(async () => "never runs"));
    expect(shed.code).toBe("RATE_LIMITED");
    expect(clock.sleeps).toEqual([1_000]);
    await shedError(admit.assertAdmits());
    expect(clock.sleeps).toEqual([1_000, 1_000]);
  });

  it("never holds a request longer than the Retry-After it is answered with", async () => {
    const clock = fakeClock();
    const admit = await saturated(clock, 5_000, 200);
    const shed = await shedError(admit(async () => "never runs"));
    expect(shed.retryAfter).toBe(1);
    expect(clock.sleeps).toEqual([1_000]);
  });

  it("answers at once with a pause of 0", async () => {
    const clock = fakeClock();
    const admit = await saturated(clock, 0);
    await shedError(admit(async () => "never runs"));
    expect(clock.sleeps).toEqual([]);
  });

  it(`holds at most ${maxHeldSheds} requests at once; beyond, answers at once`, async () => {
    const base = fakeClock();
    const wakes: Array<() => void> = [];
    const clock = { ...base, sleep: (ms: number) => new Promise<void>((resolve) => wakes.push(() => resolve(void base.sleeps.push(ms))) ) };
    const admit = await saturated(clock, 1_000);
    const held = Array.from({ length: maxHeldSheds }, () => admit(async () => "never runs").catch((e: unknown) => e));
    await settle();
    expect(wakes).toHaveLength(maxHeldSheds);
    const overflow = await shedError(admit(async () => "never runs"));
    expect(overflow.code).toBe("RATE_LIMITED");
    expect(wakes).toHaveLength(maxHeldSheds);
    for (const wake of wakes) wake();
    for (const error of await Promise.all(held)) expect((error as DomainError).code).toBe("RATE_LIMITED");
    // Once they are answered, the next shed request is held again.
    void admit(async () => "never runs").catch(() => undefined);
    await settle();
    expect(wakes).toHaveLength(maxHeldSheds + 1);
  });
});

describe("the budget as a deadline", () => {
  it("sheds a hash whose wait in line outran the budget when its turn comes, and passes the slot on", async () => {
    const clock = fakeClock();
    const admit = createAdmission({ clock, concurrency: 1, maxWaitMs: 1_000, shedPauseMs: 0 });
    await admit(async () => clock.advance(100)); // the mean: 100 ms, so a few fit in line
    let finishSlow!: () => void;
    const slow = admit(() => new Promise<void>((resolve) => (finishSlow = resolve)));
    const late = admit(async () => "ran late");
    const order: string[] = [];
    const next = admit(async () => order.push("next"));
    clock.advance(1_500); // the running hash took far longer than the mean said
    finishSlow();
    await slow;
    const shed = await shedError(late);
    expect([shed.code, shed.retryAfter]).toEqual(["RATE_LIMITED", 1]);
    // The one after it also waited past the budget; a new hash gets the free slot at once.
    await shedError(next);
    expect(order).toEqual([]);
    await expect(admit(async () => "fresh")).resolves.toBe("fresh");
  });

  it("sheds a sign-in that could no longer be answered within the budget (its wait so far and a mean hash) as soon as another arrives, while every slot is still busy", async () => {
    const clock = fakeClock();
    const admit = createAdmission({ clock, concurrency: 1, maxWaitMs: 1_000, shedPauseMs: 0 });
    await admit(async () => clock.advance(100));
    let finishStuck!: () => void;
    const stuck = admit(() => new Promise<void>((resolve) => (finishStuck = resolve))); // a starved hash process
    const waiting = admit(async () => "ran late");
    let answered: unknown;
    waiting.then(
      (value) => (answered = value),
      (error: unknown) => (answered = error),
    );
    clock.advance(950); // 950 ms in line and a 100 ms hash would answer after the 1 s budget
    await settle();
    expect(answered).toBeUndefined(); // nothing happens by itself: the clock has no timers here
    // The next sign-in's admission finds it past the budget: it is answered now, not when a slot frees.
    await admit.assertAdmits().catch(() => undefined);
    await settle();
    expect(answered).toBeInstanceOf(DomainError);
    expect((answered as DomainError).code).toBe("RATE_LIMITED");
    finishStuck();
    await stuck;
    await expect(admit(async () => "fresh")).resolves.toBe("fresh");
  });

  it("runs a hash that waited within the budget", async () => {
    const clock = fakeClock();
    const admit = createAdmission({ clock, concurrency: 1, maxWaitMs: 1_000, shedPauseMs: 0 });
    await admit(async () => clock.advance(100));
    let finish!: () => void;
    const running = admit(() => new Promise<void>((resolve) => (finish = resolve)));
    const queued = admit(async () => "ran");
    clock.advance(700); // 700 ms in line, and the mean hash, now 220 ms, still answers within the 1 s
    finish();
    await running;
    await expect(queued).resolves.toBe("ran");
  });
});
