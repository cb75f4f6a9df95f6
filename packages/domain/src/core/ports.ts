/**
 * The only doors to time and chance. Domain code asks these ports (Deps.clock, Deps.random) and never
 * the platform (Date.now, timers, Math.random, node:crypto's generators), so tests can drive them;
 * packages/domain/test/ports-only.test.ts keeps it that way.
 */
import { randomBytes, randomInt, randomUUID } from "node:crypto";

export interface Clock {
  /** The service's time: what is stored and compared with stored dates (tests move it by hand). */
  now(): Date;
  /** Milliseconds of real elapsed time, never going back: for cache lifetimes and the deadlines of real waits. */
  monotonicMs(): number;
  /** Waits ms of real time; ends early, without error, when the signal aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export interface Random {
  /** n bytes from a cryptographically secure generator (tokens, keys, IVs depend on it). */
  bytes(n: number): Buffer;
  uuid(): string;
  /** A uniformly chosen integer in [0, max). */
  int(max: number): number;
}

function sleepFor(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, Math.max(ms, 0));
    signal?.addEventListener("abort", done, { once: true });
  });
}

export const systemClock: Clock = {
  now: () => new Date(),
  monotonicMs: () => performance.now(),
  sleep: sleepFor,
};

/** Security-critical: every byte comes from node:crypto, never from Math.random. */
export const cryptoRandom: Random = {
  bytes: (n) => randomBytes(n),
  uuid: () => randomUUID(),
  int: (max) => randomInt(max),
};
