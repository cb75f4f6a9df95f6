import { describe, expect, it } from "vitest";
import { inFlightPollMs, waitWhileInFlight } from "../../../src/payments/shared/in-flight-wait.js";
import { fakeClock } from "../../support/fake-ports.js";

interface Row {
  createdAt: Date;
  answered: boolean;
}

describe("a retry waiting for the first request's answer (waitWhileInFlight)", () => {
  it("re-reads the row every poll until the first request is answered", async () => {
    const clock = fakeClock();
    let reads = 0;
    const row = await waitWhileInFlight<Row>(
      { createdAt: clock.now(), answered: false },
      { clock, inFlightSeconds: 30, inFlight: (r) => !r.answered, reload: async () => ({ createdAt: new Date(0), answered: ++reads === 3 }) },
    );
    expect(row.answered).toBe(true);
    expect(clock.sleeps).toEqual([inFlightPollMs, inFlightPollMs, inFlightPollMs]);
  });

  it("gives up at the end of the first request's in-flight window, measured from its creation", async () => {
    const clock = fakeClock();
    const createdAt = new Date(clock.now().getTime() - 29_000);
    const row = await waitWhileInFlight<Row>(
      { createdAt, answered: false },
      { clock, inFlightSeconds: 30, inFlight: (r) => !r.answered, reload: async () => ({ createdAt, answered: false }) },
    );
    expect(row.answered).toBe(false);
    expect(clock.sleeps.length).toBe(1_000 / inFlightPollMs);
  });

  it("does not wait at all once the window is over, nor for a row already answered", async () => {
    const clock = fakeClock();
    const old = { createdAt: new Date(clock.now().getTime() - 31_000), answered: false };
    const reload = async () => {
      throw new Error("not expected");
    };
    expect(await waitWhileInFlight<Row>(old, { clock, inFlightSeconds: 30, inFlight: (r) => !r.answered, reload })).toBe(old);
    const answered = { createdAt: clock.now(), answered: true };
    expect(await waitWhileInFlight<Row>(answered, { clock, inFlightSeconds: 30, inFlight: (r) => !r.answered, reload })).toBe(answered);
    expect(clock.sleeps).toEqual([]);
  });
});
