/**
 * The day of a daily report: a calendar day in Nairobi (East Africa Time, UTC+03:00 all year, no
 * daylight saving), from its midnight to the next, so 21:00 UTC the evening before up to 21:00 UTC.
 */
import { nairobiDayStart } from "../payments/shared/nairobi-day.js";

const DAY_MS = 24 * 3600 * 1000;
const dayPattern = /^\d{4}-\d{2}-\d{2}$/;

/** The instants a report covers: settled at or after `from`, before `to`. */
export interface ReportDay {
  /** The day as written, YYYY-MM-DD. */
  date: string;
  from: Date;
  to: Date;
}

/** The Nairobi day `date` (YYYY-MM-DD) names; undefined when it is not a day of the calendar (2026-02-30). */
export function reportDay(date: string): ReportDay | undefined {
  if (!dayPattern.test(date)) return undefined;
  const from = new Date(`${date}T00:00:00.000+03:00`);
  if (Number.isNaN(from.getTime()) || nairobiDate(from) !== date) return undefined;
  return { date, from, to: new Date(from.getTime() + DAY_MS) };
}

/** The Nairobi day before the one `now` is in: a report's default. */
export function dayBefore(now: Date): ReportDay {
  const from = new Date(nairobiDayStart(now).getTime() - DAY_MS);
  return { date: nairobiDate(from), from, to: new Date(from.getTime() + DAY_MS) };
}

/** Nairobi's calendar date of an instant, YYYY-MM-DD. */
export function nairobiDate(at: Date): string {
  return nairobiTime(at).slice(0, 10);
}

/** An instant in Nairobi time, ISO 8601 to the second with its offset: 2026-03-10T14:05:09+03:00. */
export function nairobiTime(at: Date): string {
  // toISOString of the instant moved by the offset reads Nairobi's wall clock (the years here have four digits).
  return `${new Date(at.getTime() + 3 * 3600 * 1000).toISOString().slice(0, 19)}+03:00`;
}
