/** Rules shared by stkPush and b2cPayout: the Idempotency-Key header and the tenant's amount bounds. */
import type { Text } from "@mteja/i18n";
import type { RequestInfo } from "../../shared/request.js";
import { DomainError } from "../../shared/errors.js";
import type { Tenant } from "../../shared/tenant.js";

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** The Idempotency-Key header: 1-255 visible ASCII characters; absent or blank means none. */
export function idempotencyKeyOf(ctx: { request: RequestInfo }): string | undefined {
  const key = ctx.request.idempotencyKey?.trim();
  if (!key) return undefined;
  if (!KEY_PATTERN.test(key)) {
    throw new DomainError("VALIDATION_ERROR", "payments.idempotency_key_invalid", {
      details: [{ path: "Idempotency-Key", message: "detail.idempotency_key_format" }],
    });
  }
  return key;
}

export function keyReusedError(): DomainError {
  return new DomainError("VALIDATION_ERROR", "payments.idempotency_key_reused", {
    details: [{ path: "Idempotency-Key", message: "detail.idempotency_key_reused" }],
  });
}

/** Per-tenant bounds (tenant settings momo.minAmount / maxAmount) may narrow Daraja's. */
export function checkTenantAmount(tenant: Tenant, amount: number): void {
  const { minAmount, maxAmount } = tenant.settings.momo ?? {};
  if (minAmount !== undefined && amount < minAmount) throw amountError({ key: "detail.amount_below_shop_min", params: { min: minAmount } });
  if (maxAmount !== undefined && amount > maxAmount) throw amountError({ key: "detail.amount_over_shop_max", params: { max: maxAmount } });
}

function amountError(message: Text): DomainError {
  return new DomainError("VALIDATION_ERROR", undefined, { details: [{ path: "amount", message }] });
}
