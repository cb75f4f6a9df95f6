/**
 * The breached-password check's range API (docs/sign-in.md#breached-passwords): Pwned Passwords'
 * `GET <PASSWORD_BREACH_API_URL>/range/<5 hex>` with `Add-Padding: true`, answered within 2 s or not
 * at all (the domain then skips the check: fail-open, warned and counted there).
 */
import { passwordRangesOff, type PasswordRanges } from "@mteja/domain";
import type { Settings } from "../settings.js";

/** How long a sign-up waits for the range before it goes on without the check. */
export const passwordRangeTimeoutMs = 2_000;

export function createPasswordRanges(settings: Pick<Settings, "PASSWORD_BREACH_CHECK" | "PASSWORD_BREACH_API_URL">, fetcher: typeof fetch = fetch): PasswordRanges {
  if (!settings.PASSWORD_BREACH_CHECK) return passwordRangesOff;
  const base = settings.PASSWORD_BREACH_API_URL.replace(/\/+$/, "");
  return {
    enabled: true,
    async range(prefix) {
      if (!/^[0-9A-F]{5}$/.test(prefix)) throw new RangeError("a range prefix is 5 upper-case hex characters");
      try {
        const response = await fetcher(`${base}/range/${prefix}`, {
          headers: { "Add-Padding": "true", "User-Agent": "mteja-breached-password-check" },
          signal: AbortSignal.timeout(passwordRangeTimeoutMs),
        });
        if (!response.ok) return undefined;
        return await response.text();
      } catch {
        // A time-out, a refused connection, a body cut short: no answer.
        return undefined;
      }
    },
  };
}
