// Africa/Nairobi is UTC+3 all year (no DST), so a fixed offset is exact and needs no tz database.
const NAIROBI_OFFSET_MS = 3 * 60 * 60 * 1000;

const pad = (value: number, width = 2): string => String(value).padStart(width, "0");

/** Daraja's `YYYYMMDDHHmmss` in Kenyan wall-clock time. */
export function darajaTimestamp(at: Date): string {
  const eat = new Date(at.getTime() + NAIROBI_OFFSET_MS);
  return (
    pad(eat.getUTCFullYear(), 4) +
    pad(eat.getUTCMonth() + 1) +
    pad(eat.getUTCDate()) +
    pad(eat.getUTCHours()) +
    pad(eat.getUTCMinutes()) +
    pad(eat.getUTCSeconds())
  );
}

/** Parses a `YYYYMMDDHHmmss` Kenyan wall-clock value; null when it is not a real date-time. */
export function parseDarajaTimestamp(value: string): Date | null {
  const match = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(value);
  if (!match) return null;
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as [number, number, number, number, number, number];
  const utc = Date.UTC(year, month - 1, day, hour, minute, second);
  const check = new Date(utc);
  // Date.UTC rolls 31 Feb into March; a round trip catches impossible dates.
  if (
    check.getUTCFullYear() !== year ||
    check.getUTCMonth() !== month - 1 ||
    check.getUTCDate() !== day ||
    check.getUTCHours() !== hour ||
    check.getUTCMinutes() !== minute ||
    check.getUTCSeconds() !== second
  ) {
    return null;
  }
  return new Date(utc - NAIROBI_OFFSET_MS);
}

/** STK Password: base64 of the plain concatenation (not a hash). */
export function stkPassword(shortcode: string, passkey: string, timestamp: string): string {
  return Buffer.from(`${shortcode}${passkey}${timestamp}`, "utf8").toString("base64");
}
