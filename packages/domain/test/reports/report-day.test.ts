import { describe, expect, it } from "vitest";
import { dayBefore, nairobiDate, nairobiTime, reportDay } from "../../src/reports/report-day.js";

describe("a report's Nairobi day (UTC+03:00, no daylight saving)", () => {
  it("runs from 21:00 UTC the evening before to 21:00 UTC", () => {
    expect(reportDay("2026-03-10")).toEqual({
      date: "2026-03-10",
      from: new Date("2026-03-09T21:00:00.000Z"),
      to: new Date("2026-03-10T21:00:00.000Z"),
    });
    // June too: Kenya keeps one offset all year.
    expect(reportDay("2026-06-30")?.from.toISOString()).toBe("2026-06-29T21:00:00.000Z");
    // The day after the year's last.
    expect(reportDay("2026-12-31")?.to.toISOString()).toBe("2026-12-31T21:00:00.000Z");
  });

  it("takes leap days and refuses days the calendar lacks or another form", () => {
    expect(reportDay("2028-02-29")?.from.toISOString()).toBe("2028-02-28T21:00:00.000Z");
    const notDays = ["2026-02-29", "2026-02-30", "2026-04-31", "2026-13-01", "2026-00-10", "2026-1-5", "20260310"];
    for (const bad of [...notDays, "2026-03-10T00:00", "yesterday", ""]) {
      expect(reportDay(bad), bad).toBeUndefined();
    }
  });

  it("defaults to the day before the one the clock is in, by Nairobi's midnight", () => {
    expect(dayBefore(new Date("2026-03-10T20:59:59.999Z")).date).toBe("2026-03-09");
    expect(dayBefore(new Date("2026-03-10T21:00:00.000Z")).date).toBe("2026-03-10");
    expect(dayBefore(new Date("2026-03-10T21:00:00.000Z"))).toEqual(reportDay("2026-03-10"));
    expect(dayBefore(new Date("2026-01-01T05:00:00.000Z")).date).toBe("2025-12-31");
  });

  it("writes an instant in Nairobi time to the second, with its offset", () => {
    expect(nairobiTime(new Date("2026-03-09T21:00:00.000Z"))).toBe("2026-03-10T00:00:00+03:00");
    // Cut, not rounded: the last instant of a day is still that day.
    expect(nairobiTime(new Date("2026-03-10T20:59:59.999Z"))).toBe("2026-03-10T23:59:59+03:00");
    expect(nairobiDate(new Date("2026-03-10T20:59:59.999Z"))).toBe("2026-03-10");
    expect(nairobiDate(new Date("2026-03-10T21:00:00.000Z"))).toBe("2026-03-11");
  });
});
