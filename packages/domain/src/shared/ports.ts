/**
 * The only doors to time and chance. Domain code asks these ports (Deps.clock, Deps.random) and never
 * the platform (Date.now, timers, Math.random, node:crypto's generators), so tests can drive them;
 * packages/domain/test/ports-only.test.ts keeps it that way.
 */
import { randomBytes, randomInt, randomUUID } from "node:crypto";
import type { Clock, Random } from "@mteja/shared";

// The port types are shared with the packages the domain does not own (the mailer): @mteja/shared.
export type { Clock, Random };

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

/** Where the domain writes its log lines (pino in apps/api, with the request id of the line's request). */
export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}
