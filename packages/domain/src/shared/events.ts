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

export interface DomainEvents {
  signIn(report: SignInReport): void;
}

/** For compositions where nobody counts (scripts, tests that do not look). */
export const unobservedEvents: DomainEvents = { signIn() {} };
