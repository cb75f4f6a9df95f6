/**
 * What the domain reports as it happens, for the composition root to count (apps/api wires it to
 * the Prometheus metrics). Reporting never changes an outcome.
 */
import type { SignInStep } from "./operation-meta.js";

export interface SignInReport {
  step: SignInStep;
  /** "success", "requires_otp", or the error code in lower case ("invalid_credentials"). */
  outcome: string;
}

/** A refused sign-in's outcome: its error code in lower case ("error" for anything that is not a code). */
export function signInOutcomeOfCode(code: string): string {
  return /^[A-Z_]{1,40}$/.test(code) ? code.toLowerCase() : "error";
}

/** A breached-password check (auth/breached-passwords/): its outcome, "skipped" when the API did not answer in time. */
export type PasswordBreachOutcome = "breached" | "clear" | "skipped";

/** A CAPTCHA check (auth/captcha/): "missing" (no token), "passed", "refused", or "unavailable" (no answer). */
export type CaptchaOutcome = "missing" | "passed" | "refused" | "unavailable";

export interface DomainEvents {
  signIn(report: SignInReport): void;
  passwordBreachCheck(outcome: PasswordBreachOutcome): void;
  captchaCheck(report: { flow: string; outcome: CaptchaOutcome }): void;
}

/** For compositions where nobody counts (scripts, tests that do not look). */
export const unobservedEvents: DomainEvents = { signIn() {}, passwordBreachCheck() {}, captchaCheck() {} };
