/**
 * The doors to time and chance, as types only: each package asks for these and the composition root
 * passes the real ones (packages/domain/src/shared/ports.ts builds them), so tests can drive both.
 */
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
