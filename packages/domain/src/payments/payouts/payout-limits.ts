/**
 * Each tenant's payout switch and limits (settings.momo.b2c = { enabled, maxAmount, dailyLimit }),
 * checked before a payout is stored (docs/mpesa.md "Payouts per shop").
 */
import { payouts, type PayoutModel } from "@mteja/db";
import type { Text } from "@mteja/i18n";
import { DomainError } from "../../shared/errors.js";
import type { Tenant } from "../../shared/tenant.js";
import type { AuthedCtx } from "../shared/ports.js";
import { nairobiDayStart } from "./nairobi-day.js";
import { providerUnavailable } from "../shared/provider-errors.js";

function payoutSettingsOf(tenant: Tenant) {
  return tenant.settings.momo?.b2c ?? {};
}

/**
 * Off unless switched on, except for the default tenant, which pays out by default when it has an
 * account to pay out from (the platform's B2C settings, or its own).
 */
function payoutsSwitchedOn(ctx: AuthedCtx): boolean {
  const { deps, tenant } = ctx;
  const enabled = payoutSettingsOf(tenant).enabled;
  if (enabled !== undefined) return enabled;
  return tenant.id === deps.config.defaultTenantId && deps.daraja.b2cEnabled && deps.daraja.hasPayoutAccount(tenant);
}

function amountError(message: Text): DomainError {
  return new DomainError("VALIDATION_ERROR", undefined, { details: [{ path: "amount", message }] });
}

/** The checks that need no database: the switch (403), an account to pay from (503), maxAmount (422). */
export function authorizePayout(ctx: AuthedCtx, amount: number): void {
  if (!payoutsSwitchedOn(ctx)) {
    throw new DomainError("FORBIDDEN", payoutSettingsOf(ctx.tenant).enabled === false ? "payouts.switched_off" : "payouts.not_switched_on");
  }
  if (!ctx.deps.daraja.hasPayoutAccount(ctx.tenant)) throw providerUnavailable("payouts.not_configured");
  const { maxAmount } = payoutSettingsOf(ctx.tenant);
  if (maxAmount !== undefined && amount > maxAmount) throw amountError({ key: "detail.payout_over_max", params: { max: maxAmount } });
}

type PayoutRow = payouts.NewPayout & { tenantId: string; requestedBy: string; amount: number; createdAt: Date };

/**
 * Stores a new payout row, within the tenant's daily limit: shillings of its payouts that are not
 * FAILED, per Nairobi day. The tenant's row is locked while summing and storing, so payouts at once
 * are counted one after the other and cannot both pass the limit.
 */
export async function storePayoutWithinDailyLimit(ctx: AuthedCtx, { data }: { data: PayoutRow }): Promise<PayoutModel> {
  const { dailyLimit } = payoutSettingsOf(ctx.tenant);
  const { db } = ctx;
  if (dailyLimit === undefined) return payouts.create(db, data);
  return ctx.deps.db.transaction(db, async (tx) => {
    await payouts.lockTenantPayouts(tx, data.tenantId);
    // A retry with the same Idempotency-Key is not a new payout: its create fails on the key and is replayed.
    const { tenantId, requestedBy, idempotencyKey } = data;
    const retried = idempotencyKey
      ? await payouts.findByIdempotencyKey(tx, { tenantId, requestedBy, idempotencyKey })
      : null;
    if (!retried) {
      const since = nairobiDayStart(data.createdAt);
      const today = await payouts.sumSince(tx, { tenantId, excludingStatus: "FAILED", since });
      const left = dailyLimit - today;
      if (data.amount > left) throw amountError({ key: "detail.payout_over_daily_limit", params: { limit: dailyLimit, left: Math.max(0, left) } });
    }
    return payouts.create(tx, data);
  });
}
