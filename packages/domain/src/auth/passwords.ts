import type { Clock } from "../core/ports.js";
import { DomainError } from "../errors.js";

/** What the procedures ask of password hashing. */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** False for a wrong password; unknown users are verified against a decoy so timing matches. */
  verify(hash: string | undefined, password: string): Promise<boolean>;
  /**
   * Throws the RATE_LIMITED a hash started now would be shed with, so a sign-in can be shed before any
   * other work. Admitting here reserves nothing: hash and verify still apply the admission themselves.
   */
  assertAdmits(): void;
}

/**
 * Where argon2id actually runs (apps/api provides libuv's threads or a pool of processes). verify answers
 * false for a hash it cannot read and rejects only when the hashing itself failed.
 */
export interface PasswordHashing {
  hash(password: string): Promise<string>;
  verify(hash: string, password: string): Promise<boolean>;
}

export interface PasswordHasherOptions {
  hashing: PasswordHashing;
  clock: Pick<Clock, "monotonicMs">;
  /** Hashes running at once; the rest wait in line. */
  concurrency: number;
  /** The longest expected wait in line a hash is admitted to; beyond it the request is shed with RATE_LIMITED. */
  maxWaitMs: number;
}

/** How much each finished hash moves the mean hash time (an exponentially weighted mean). */
const meanWeight = 0.2;

export async function createPasswordHasher(options: PasswordHasherOptions): Promise<PasswordHasher> {
  const admit = createAdmission(options);
  // Made with the same parameters as real hashes, so an unknown user costs what a known one does.
  const decoy = await admit(() => options.hashing.hash("decoy-password-for-unknown-users"));
  return {
    hash: (password) => admit(() => options.hashing.hash(password)),
    verify: async (hash, password) => {
      const ok = await admit(() => options.hashing.verify(hash ?? decoy, password));
      return hash !== undefined && ok;
    },
    assertAdmits: admit.assertAdmits,
  };
}

/**
 * Admits a hash only if its expected wait (its place in line × the recent mean hash time ÷ concurrency)
 * stays within the budget: a login storm is shed with 429 instead of queueing sign-ins for minutes.
 */
export function createAdmission({ clock, concurrency, maxWaitMs }: Omit<PasswordHasherOptions, "hashing">) {
  let running = 0;
  let meanMs: number | undefined;
  const waiting: Array<() => void> = [];
  /** Throws RATE_LIMITED when a hash started now would wait in line longer than the budget. */
  const assertAdmits = () => {
    if (running < concurrency) return;
    const expectedWaitMs = ((waiting.length + 1) * (meanMs ?? 0)) / concurrency;
    if (expectedWaitMs > maxWaitMs) {
      throw new DomainError("RATE_LIMITED", "auth.hashing_busy", {
        retryAfter: Math.max(1, Math.ceil(expectedWaitMs / 1000)),
      });
    }
  };
  async function admit<T>(task: () => Promise<T>): Promise<T> {
    if (running >= concurrency) {
      assertAdmits();
      // The finishing task hands its slot straight to the next in line.
      await new Promise<void>((resolve) => waiting.push(resolve));
    } else {
      running++;
    }
    const started = clock.monotonicMs();
    try {
      const result = await task();
      const tookMs = clock.monotonicMs() - started;
      meanMs = meanMs === undefined ? tookMs : meanMs + meanWeight * (tookMs - meanMs);
      return result;
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  }
  return Object.assign(admit, { assertAdmits });
}
