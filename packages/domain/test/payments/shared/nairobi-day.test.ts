import { describe, expect, it } from "vitest";
import { nairobiDayStart } from "../../../src/payments/shared/nairobi-day.js";

describe("the Nairobi day (UTC+3, no daylight saving)", () => {
  it("starts at 21:00 UTC the evening before", () => {
    expect(nairobiDayStart(new Date("2026-11-24T20:59:59.999Z")).toISOString()).toBe("2026-11-23T21:00:00.000Z");
    expect(nairobiDayStart(new Date("2026-11-24T21:00:00.000Z")).toISOString()).toBe("2026-11-24T21:00:00.000Z");
    expect(nairobiDayStart(new Date("2026-11-25T08:15:00.000Z")).toISOString()).toBe("2026-11-24T21:00:00.000Z");
  });

  it("is the same in June (Kenya keeps one offset all year) and before 1970", () => {
    expect(nairobiDayStart(new Date("2026-06-30T22:00:00.000Z")).toISOString()).toBe("2026-06-30T21:00:00.000Z");
    expect(nairobiDayStart(new Date("1969-12-31T22:00:00.000Z")).toISOString()).toBe("1969-12-31T21:00:00.000Z");
  });
});
