/** Rules shared by stkPush and b2cPayout: the Idempotency-Key header and the tenant's amount bounds. */
import type { Context } from "../context.js";
import { DomainError } from "../errors.js";
import type { Tenant } from "../tenants/directory.js";

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** The Idempotency-Key header: 1-255 visible ASCII characters; absent or blank means none. */
export function idempotencyKeyOf(ctx: Context): string | undefined {
  const key = ctx.request.idempotencyKey?.trim();
  if (!key) return undefined;
  if (!KEY_PATTERN.test(key)) {
    throw new DomainError("VALIDATION_ERROR", "The Idempotency-Key header is invalid.", {
      details: [{ path: "Idempotency-Key", message: "must be 1-255 visible ASCII characters (a UUID is a good choice)" }],
    });
  }
  return key;
}

export function keyReusedError(): DomainError {
  return new DomainError("VALIDATION_ERROR", "This Idempotency-Key was already used for a different request.", {
    details: [{ path: "Idempotency-Key", message: "already used with a different body; use a new key for a new request" }],
  });
}

/** Per-tenant bounds (tenant settings momo.minAmount / maxAmount) may narrow Daraja's. */
export function checkTenantAmount(tenant: Tenant, amount: number): void {
  const { minAmount, maxAmount } = tenant.settings.momo ?? {};
  if (minAmount !== undefined && amount < minAmount) throw amountError(`amount must be at least ${minAmount} for this shop`);
  if (maxAmount !== undefined && amount > maxAmount) throw amountError(`amount must be at most ${maxAmount} for this shop`);
}

function amountError(message: string): DomainError {
  return new DomainError("VALIDATION_ERROR", "The request is invalid.", { details: [{ path: "amount", message }] });
}
