/**
 * The CAPTCHA verify API (Cloudflare Turnstile or hCaptcha, CAPTCHA_PROVIDER), as the auth area needs
 * it: one widget token checked once. apps/api/src/runtime/captcha.ts speaks its wire format.
 */
import type { DomainEvents } from "../../shared/events.js";

/** passed: the provider says yes; refused: it says no (forged, expired, reused); unavailable: no answer. */
export type CaptchaVerdict = "passed" | "refused" | "unavailable";

export interface CaptchaVerifier {
  /** False with CAPTCHA_PROVIDER=off: a shop's "always" then acts as "never" (the start warns). */
  readonly enabled: boolean;
  verify(token: string, remoteIp: string): Promise<CaptchaVerdict>;
}

export interface CaptchaPorts {
  captcha: CaptchaVerifier;
  events: DomainEvents;
}

/** No provider: nothing is ever asked for. */
export const captchaOff: CaptchaVerifier = { enabled: false, verify: async () => "unavailable" };
