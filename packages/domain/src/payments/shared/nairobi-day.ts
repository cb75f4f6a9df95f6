/** Kenya keeps East Africa Time, UTC+3, all year (no daylight saving). */
const NAIROBI_OFFSET_MS = 3 * 3600 * 1000;
const DAY_MS = 24 * 3600 * 1000;

/** The instant the Nairobi calendar day containing `at` began. */
export function nairobiDayStart(at: Date): Date {
  const local = at.getTime() + NAIROBI_OFFSET_MS;
  const midnight = local - (((local % DAY_MS) + DAY_MS) % DAY_MS);
  return new Date(midnight - NAIROBI_OFFSET_MS);
}
