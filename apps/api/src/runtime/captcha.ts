/**
 * The CAPTCHA verify API (docs/sign-in.md#captcha): Cloudflare Turnstile's or hCaptcha's siteverify,
 * which take the same form — a POST of `secret`, `response` (the widget's token) and `remoteip`,
 * form-encoded — and answer JSON `{ "success": true|false, "error-codes": [...] }`. Each refuses a token
 * it has seen before (Turnstile: `timeout-or-duplicate`, hCaptcha: `already-seen-response`). No answer
 * within 3 s, an HTTP error or an unreadable body is "unavailable": the domain fails closed (503).
 */
import { captchaOff, type CaptchaVerifier, type Logger } from "@mteja/domain";
import type { Settings } from "../settings.js";

export const captchaVerifyTimeoutMs = 3_000;

/** Each provider's siteverify, where CAPTCHA_VERIFY_URL does not say otherwise. */
export const captchaVerifyUrls = {
  turnstile: "https://challenges.cloudflare.com/turnstile/v0/siteverify",
  hcaptcha: "https://api.hcaptcha.com/siteverify",
} as const;

export type CaptchaProvider = keyof typeof captchaVerifyUrls;

export interface CaptchaAccount {
  provider: CaptchaProvider;
  secret: string;
  verifyUrl: string;
}

/** The provider the settings name; undefined with CAPTCHA_PROVIDER off or unset. */
export function captchaAccountOf(settings: Pick<Settings, "CAPTCHA_PROVIDER" | "CAPTCHA_SECRET" | "CAPTCHA_VERIFY_URL">): CaptchaAccount | undefined {
  const provider = settings.CAPTCHA_PROVIDER;
  if (!provider || provider === "off" || !settings.CAPTCHA_SECRET) return undefined;
  return { provider, secret: settings.CAPTCHA_SECRET, verifyUrl: settings.CAPTCHA_VERIFY_URL ?? captchaVerifyUrls[provider] };
}

export function createCaptchaVerifier(account: CaptchaAccount | undefined, logger: Logger, fetcher: typeof fetch = fetch): CaptchaVerifier {
  if (!account) return captchaOff;
  return {
    enabled: true,
    async verify(token, remoteIp) {
      const form = new URLSearchParams({ secret: account.secret, response: token, ...(remoteIp ? { remoteip: remoteIp } : {}) });
      try {
        const response = await fetcher(account.verifyUrl, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: form.toString(),
          signal: AbortSignal.timeout(captchaVerifyTimeoutMs),
        });
        if (!response.ok) {
          logger.warn({ provider: account.provider, status: response.status }, "CAPTCHA verify API answered an HTTP error");
          return "unavailable";
        }
        const answer = (await response.json()) as { success?: unknown; "error-codes"?: unknown };
        if (answer.success === true) return "passed";
        const codes = Array.isArray(answer["error-codes"]) ? answer["error-codes"].filter((code) => typeof code === "string") : [];
        // A wrong secret is ours to fix, not the customer's: said in the log, and still a refusal.
        if (codes.some((code) => /secret/.test(code))) logger.warn({ provider: account.provider, codes }, "CAPTCHA verify API refused our secret");
        return "refused";
      } catch {
        logger.warn({ provider: account.provider }, "CAPTCHA verify API did not answer");
        return "unavailable";
      }
    },
  };
}
