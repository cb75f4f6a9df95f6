/** The per-user count of open payment status subscriptions. */
import { describe, expect, it } from "vitest";
import { createStatusStreamSlots, MAX_OPEN_STATUS_STREAMS_PER_USER } from "../../../src/payments/kernel/status-stream-slots.js";

describe("status stream slots", () => {
  it("gives each user 5 slots, and a released slot can be taken again", () => {
    expect(MAX_OPEN_STATUS_STREAMS_PER_USER).toBe(5);
    const slots = createStatusStreamSlots();
    const taken = Array.from({ length: 5 }, () => slots.take("shop:user-1"));
    expect(taken.every(Boolean)).toBe(true);
    expect(slots.take("shop:user-1")).toBeUndefined();
    expect(slots.take("shop:user-2")).toBeDefined();

    taken[0]!.release();
    expect(slots.take("shop:user-1")).toBeDefined();
    expect(slots.take("shop:user-1")).toBeUndefined();
  });

  it("counts a slot released twice (stream end and connection close) once", () => {
    const slots = createStatusStreamSlots(2);
    const first = slots.take("u")!;
    slots.take("u");
    first.release();
    first.release();
    expect(slots.take("u")).toBeDefined();
    expect(slots.take("u")).toBeUndefined();
  });
});
