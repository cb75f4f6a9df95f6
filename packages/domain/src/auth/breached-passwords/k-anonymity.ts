/**
 * The k-anonymity rule of the breached-password check (docs/sign-in.md#breached-passwords): only the
 * first 5 hex characters of the password's SHA-1 leave the service; the rest is compared here, against
 * every suffix the range lists. Padding lines (count 0, added by `Add-Padding: true` so the answer's
 * size says nothing about the prefix) are no breach.
 */
import { createHash } from "node:crypto";

export interface RangeQuery {
  /** The first 5 hex characters of the SHA-1, upper case: all that is sent. */
  prefix: string;
  /** The other 35, kept here. */
  suffix: string;
}

export function rangeQueryOf(password: string): RangeQuery {
  const hex = createHash("sha1").update(password, "utf8").digest("hex").toUpperCase();
  return { prefix: hex.slice(0, 5), suffix: hex.slice(5) };
}

/** Whether the range lists the suffix with a count above 0. */
export function rangeListsSuffix(range: string, suffix: string): boolean {
  for (const line of range.split("\n")) {
    const [listed, count] = line.trim().split(":");
    if (listed?.toUpperCase() === suffix && Number(count) > 0) return true;
  }
  return false;
}
