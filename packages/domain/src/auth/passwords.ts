import type { Clock } from "../shared/ports.js";
import { DomainError } from "../shared/errors.js";

/** What the procedures ask of password hashing. */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** False for a wrong password; unknown users are verified against a decoy so timing matches. */
  verify(hash: string | undefined, password: string): Promise<boolean>;
  /**
   * Rejects with the RATE_LIMITED a hash started now would be shed with (after the shed pause), so a
   * sign-in can be shed before any other work. Admitting here reserves nothing: hash and verify still
   * apply the admission themselves.
   */
  assertAdmits(): Promise<void>;
}

/**
 * Where argon2id actually runs (apps/api provides libuv's threads or a pool of processes). verify answers
 * false for a hash it cannot read and rejects only when the hashing itself failed.
 */
export interface PasswordHashing {
  hash(password: string, turn?: HashTurn): Promise<string>;
  verify(hash: string, password: string, turn?: HashTurn): Promise<boolean>;
}

/**
 * How a hash got its slot. `queued`: it waited in line behind other hashes (sign-ins arriving faster than
 * they are hashed, a storm): run it after the service's other work. Otherwise it started at once (an
 * ordinary sign-in): it may share the CPU with that work on equal terms.
 */
export interface HashTurn {
  queued: boolean;
}

export interface PasswordHasherOptions {
  hashing: PasswordHashing;
  clock: Pick<Clock, "monotonicMs" | "sleep">;
  /** Hashes running at once; the rest wait in line. */
  concurrency: number;
  /** The longest expected wait in line a hash is admitted to; beyond it the request is shed with RATE_LIMITED. */
  maxWaitMs: number;
  /**
   * How long a shed request is held before its RATE_LIMITED is answered (never longer than its
   * Retry-After; 0: at once). A client that retries at once — a bot, a herd of apps reconnecting —
   * would otherwise turn shedding into a busy loop that takes the CPU the hashes and every other
   * request need; held, it costs a timer.
   */
  shedPauseMs: number;
}

/**
 * At most this many shed requests are held at once; beyond, they are answered at once. A held request
 * costs a socket and a timer: this bounds what a flood of connections can make the service keep.
 */
export const maxHeldSheds = 1_000;

/** How much each finished hash moves the mean hash time (an exponentially weighted mean). */
const meanWeight = 0.2;

export async function createPasswordHasher(options: PasswordHasherOptions): Promise<PasswordHasher> {
  const admit = createAdmission(options);
  // Made with the same parameters as real hashes, so an unknown user costs what a known one does.
  const decoy = await admit((turn) => options.hashing.hash("decoy-password-for-unknown-users", turn));
  return {
    hash: (password) => admit((turn) => options.hashing.hash(password, turn)),
    verify: async (hash, password) => {
      const ok = await admit((turn) => options.hashing.verify(hash ?? decoy, password, turn));
      return hash !== undefined && ok;
    },
    assertAdmits: admit.assertAdmits,
  };
}

/** The answer to a shed hash: come back once about `waitMs` has passed (whole seconds, at least 1). */
function hashingBusy(waitMs: number): DomainError {
  return new DomainError("RATE_LIMITED", "auth.hashing_busy", { retryAfter: Math.max(1, Math.ceil(waitMs / 1000)) });
}

/**
 * Admits a hash only if its expected wait (its place in line × the recent mean hash time ÷ concurrency)
 * stays within the budget: a login storm is shed with 429 instead of queueing sign-ins for minutes.
 */
export function createAdmission({ clock, concurrency, maxWaitMs, shedPauseMs }: Omit<PasswordHasherOptions, "hashing">) {
  let running = 0;
  let meanMs: number | undefined;
  let held = 0;
  /** The line, oldest first: each is given a slot or shed. */
  const waiting: Array<{ queuedAt: number; admit: () => void; shed: (error: DomainError) => void }> = [];
  /**
   * The budget is a deadline: whoever could no longer be answered within it — the wait so far plus a
   * hash of the recent mean time — is shed. Checked whenever the line moves (a slot frees, a sign-in
   * arrives) rather than by a timer, so a slot held up by a starved hash process does not keep the line
   * waiting past it while sign-ins keep coming; counting the hash keeps a sign-in admitted near the
   * deadline from finishing a slow hash long after it.
   */
  const shedOverdue = () => {
    const now = clock.monotonicMs();
    while (waiting.length > 0 && now - waiting[0]!.queuedAt + (meanMs ?? 0) > maxWaitMs) waiting.shift()!.shed(hashingBusy(meanMs ?? 0));
  };
  /** The RATE_LIMITED a hash started now is shed with, when it would wait in line longer than the budget. */
  const shedding = (): DomainError | undefined => {
    if (running < concurrency) return undefined;
    const expectedWaitMs = ((waiting.length + 1) * (meanMs ?? 0)) / concurrency;
    return expectedWaitMs <= maxWaitMs ? undefined : hashingBusy(expectedWaitMs);
  };
  /** Answers a shed request: after the shed pause (while fewer than maxHeldSheds are held), rejects with `error`. */
  const shed = async (error: DomainError): Promise<never> => {
    if (shedPauseMs > 0 && held < maxHeldSheds) {
      held++;
      try {
        await clock.sleep(Math.min(shedPauseMs, (error.retryAfter ?? 1) * 1000));
      } finally {
        held--;
      }
    }
    throw error;
  };
  const assertAdmits = async (): Promise<void> => {
    shedOverdue();
    const error = shedding();
    if (error) await shed(error);
  };
  /** A finished (or refused) slot goes straight to the next in line, or back to the pool. */
  const release = () => {
    // The expected wait is an estimate: hashes can slow down after it was made (a busy host, a starved
    // nice-10 process). Nobody waits in line longer than the budget; past it, the slot passes on.
    shedOverdue();
    const next = waiting.shift();
    if (next) next.admit();
    else running--;
  };
  async function admit<T>(task: (turn: HashTurn) => Promise<T>): Promise<T> {
    shedOverdue();
    const queued = running >= concurrency;
    if (queued) {
      const error = shedding();
      if (error) await shed(error);
      const queuedAt = clock.monotonicMs();
      await new Promise<void>((admitted, shed) => waiting.push({ queuedAt, admit: admitted, shed }));
    } else {
      running++;
    }
    const started = clock.monotonicMs();
    try {
      const result = await task({ queued });
      const tookMs = clock.monotonicMs() - started;
      meanMs = meanMs === undefined ? tookMs : meanMs + meanWeight * (tookMs - meanMs);
      return result;
    } finally {
      release();
    }
  }
  return Object.assign(admit, { assertAdmits });
}
