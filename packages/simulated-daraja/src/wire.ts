import { randomBytes, randomInt } from "node:crypto";

// Formats and identifiers as Daraja emits them (docs/daraja-wire-format.md §1, §4.2, §5, §7.3, §8.1).

const NAIROBI_OFFSET_MS = 3 * 60 * 60 * 1000;
const pad = (value: number, width = 2) => String(value).padStart(width, "0");

interface WallClock {
  year: string;
  month: string;
  day: string;
  hour: string;
  minute: string;
  second: string;
  millis: string;
}

function nairobi(at: Date): WallClock {
  const eat = new Date(at.getTime() + NAIROBI_OFFSET_MS);
  return {
    year: pad(eat.getUTCFullYear(), 4),
    month: pad(eat.getUTCMonth() + 1),
    day: pad(eat.getUTCDate()),
    hour: pad(eat.getUTCHours()),
    minute: pad(eat.getUTCMinutes()),
    second: pad(eat.getUTCSeconds()),
    millis: pad(eat.getUTCMilliseconds(), 3),
  };
}

/** `YYYYMMDDHHmmss` in Kenyan time. */
export function eatTimestamp(at: Date): string {
  const t = nairobi(at);
  return `${t.year}${t.month}${t.day}${t.hour}${t.minute}${t.second}`;
}

/** B2C `TransactionCompletedDateTime`: `dd.MM.yyyy HH:mm:ss`. */
export function eatCompletedDateTime(at: Date): string {
  const t = nairobi(at);
  return `${t.day}.${t.month}.${t.year} ${t.hour}:${t.minute}:${t.second}`;
}

/** Parses a `YYYYMMDDHHmmss` Kenyan time; null for anything that is not a real date-time. */
export function parseEatTimestamp(value: string): Date | null {
  const match = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(value);
  if (!match) return null;
  const parts = match.slice(1).map(Number) as [number, number, number, number, number, number];
  const [year, month, day, hour, minute, second] = parts;
  const utc = Date.UTC(year, month - 1, day, hour, minute, second) - NAIROBI_OFFSET_MS;
  return eatTimestamp(new Date(utc)) === value ? new Date(utc) : null;
}

export function expectedPassword(shortcode: string, passkey: string, timestamp: string): string {
  return Buffer.from(`${shortcode}${passkey}${timestamp}`, "utf8").toString("base64");
}

const hex = (length: number) =>
  randomBytes(Math.ceil(length / 2))
    .toString("hex")
    .slice(0, length);
const digits = (length: number) => Array.from({ length }, () => randomInt(10)).join("");
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";

export const newRequestId = () => `${digits(4)}-${digits(8)}-1`;
export const newMerchantRequestId = () => `${hex(4)}-${hex(4)}-${hex(4)}-${hex(12)}${digits(7)}`;
/** `ws_CO_` + DDMMYYYYHHmmssSSS + digits, like `ws_CO_1007202409152617172396192`. */
export function newCheckoutRequestId(at: Date): string {
  const t = nairobi(at);
  return `ws_CO_${t.day}${t.month}${t.year}${t.hour}${t.minute}${t.second}${t.millis}${digits(10)}`;
}
export function newConversationId(at: Date): string {
  const t = nairobi(at);
  return `AG_${t.year}${t.month}${t.day}_${hex(20)}`;
}
export const newOriginatorConversationId = () => `${hex(4)}-${hex(4)}-${hex(4)}-${hex(12)}${digits(7)}`;
/** 10 characters like `NLJ7RT61SV`; a letter first, as M-Pesa receipts have. */
export function newReceipt(): string {
  const first = LETTERS[randomInt(LETTERS.length)] ?? "S";
  return first + Array.from({ length: 9 }, () => ALNUM[randomInt(ALNUM.length)]).join("");
}
const BASE62 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
/** 28 alphanumerics, like `c9SQxWWhmdVRlyh0zh8gZDTkubVF`. */
export const newAccessToken = () => Array.from({ length: 28 }, () => BASE62[randomInt(BASE62.length)]).join("");

export const MSISDN = /^254[17]\d{8}$/;

/** `07…`, `01…`, `+254…`, `254…` → `254…`; null otherwise. Only for the control API's convenience. */
export function normalisePhone(input: string): string | null {
  const match = /^(?:\+?254|0)([17]\d{8})$/.exec(input.replace(/[\s-]/g, ""));
  return match ? `254${match[1]}` : null;
}
