// Reading a request's fields as Daraja does (docs/daraja-wire-format.md).

/** A field Daraja types as Numeric or String: both JSON forms are accepted. */
export function text(value: unknown): string | null {
  if (typeof value === "string") return value.trim();
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return null;
}

/** A whole, positive amount given as a number or a numeric string; null otherwise. */
export function wholeAmount(value: unknown): number | null {
  const raw = text(value);
  if (raw === null || !/^\d+(\.0+)?$/.test(raw)) return null;
  const amount = Number(raw);
  return Number.isSafeInteger(amount) && amount > 0 ? amount : null;
}

const BLOCKED_URL_WORDS = /m-?pesa|safaricom|exe|cmd|sql|query/i;

/**
 * docs/daraja-wire-format.md#callback-urls: an http(s) URL, and (when enabled) none of the words Daraja's
 * processor rejects.
 */
export function isAcceptableCallbackUrl(value: unknown, blockKeywords: boolean): value is string {
  if (typeof value !== "string") return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  return !(blockKeywords && BLOCKED_URL_WORDS.test(value));
}
