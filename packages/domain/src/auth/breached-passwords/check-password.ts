/**
 * Refuses a new password seen in a breach (register, password change and reset, a guest's upgrade):
 * 422 VALIDATION_ERROR on the field that carries it. The check fails open: when the range API does
 * not answer within 2 s the password is taken, with a warning and the metric's "skipped" outcome —
 * an outage of a third party must not stop sign-ups.
 */
import { DomainError } from "../../shared/errors.js";
import type { RequestCtx } from "../../shared/request-context.js";
import { rangeListsSuffix, rangeQueryOf } from "./k-anonymity.js";
import type { BreachedPasswordPorts } from "./ports.js";

export async function assertPasswordNotBreached(ctx: RequestCtx<BreachedPasswordPorts>, password: string, field: "password" | "new_password"): Promise<void> {
  const { deps } = ctx;
  if (!deps.passwordRanges.enabled) return;
  const { prefix, suffix } = rangeQueryOf(password);
  const range = await deps.passwordRanges.range(prefix);
  if (range === undefined) {
    deps.events.passwordBreachCheck("skipped");
    deps.logger.warn({}, "breached-password check skipped: the range API did not answer in time; the password was taken");
    return;
  }
  const breached = rangeListsSuffix(range, suffix);
  deps.events.passwordBreachCheck(breached ? "breached" : "clear");
  if (breached) {
    throw new DomainError("VALIDATION_ERROR", undefined, { details: [{ path: field, message: "detail.password_breached" }] });
  }
}
