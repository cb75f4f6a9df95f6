import type { Clock, Random } from "../../src/shared/ports.js";

/** A Clock that never waits: sleep() moves both its times forward at once, so tests run in no real time. */
export function fakeClock(start = new Date("2026-11-25T08:00:00.000Z")) {
  let wall = start.getTime();
  let monotonic = 0;
  const sleeps: number[] = [];
  const advance = (ms: number) => {
    wall += ms;
    monotonic += ms;
  };
  const clock: Clock & { advance(ms: number): void; sleeps: number[] } = {
    now: () => new Date(wall),
    monotonicMs: () => monotonic,
    async sleep(ms, signal) {
      sleeps.push(ms);
      if (!signal?.aborted) advance(ms);
    },
    advance,
    sleeps,
  };
  return clock;
}

/** A Random that answers from a counter: the same sequence on every run. */
export function sequenceRandom(): Random {
  let next = 0;
  return {
    bytes: (n) => Buffer.from(Array.from({ length: n }, () => next++ % 256)),
    uuid: () => `00000000-0000-4000-8000-${(next++).toString(16).padStart(12, "0")}`,
    int: (max) => next++ % max,
  };
}
