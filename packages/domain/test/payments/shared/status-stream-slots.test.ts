/** The per-user count of open payment status subscriptions. */
import { describe, expect, it } from "vitest";
import { createStatusStreamSlots, MAX_OPEN_STATUS_STREAMS_PER_USER } from "../../../src/payments/shared/status-stream-slots.js";

describe("status stream slots", () => {
  it("gives each user 5 slots, and a released slot can be taken again", async () => {
    expect(MAX_OPEN_STATUS_STREAMS_PER_USER).toBe(5);
    const slots = createStatusStreamSlots();
    const taken = await Promise.all(Array.from({ length: 5 }, () => slots.take("shop:user-1")));
    expect(taken.every(Boolean)).toBe(true);
    expect(await slots.take("shop:user-1")).toBeUndefined();
    expect(await slots.take("shop:user-2")).toBeDefined();

    taken[0]!.release();
    expect(await slots.take("shop:user-1")).toBeDefined();
    expect(await slots.take("shop:user-1")).toBeUndefined();
  });

  it("counts a slot released twice (stream end and connection close) once", async () => {
    const slots = createStatusStreamSlots(2);
    const first = (await slots.take("u"))!;
    await slots.take("u");
    first.release();
    first.release();
    expect(await slots.take("u")).toBeDefined();
    expect(await slots.take("u")).toBeUndefined();
  });
});
