/**
 * A payout's checks before it is stored (docs/mpesa.md "Payouts per shop"): the shop's B2C switch, an
 * account to pay from, maxAmount, and the daily limit it shares with refunds sent by B2C (shared/b2c-limits.ts).
 */
import { payouts, type PayoutModel } from "@mteja/db";
import type { Text } from "@mteja/i18n";
import { DomainError } from "../../shared/errors.js";
import type { AuthedCtx } from "../shared/ports.js";
import { b2cLeftToday, b2cSettingsOf, b2cSwitchedOn } from "../shared/b2c-limits.js";
import { providerUnavailable } from "../shared/provider-errors.js";

function amountError(message: Text): DomainError {
  return new DomainError("VALIDATION_ERROR", undefined, { details: [{ path: "amount", message }] });
}

/** The checks that need no database: the switch (403), an account to pay from (503), maxAmount (422). */
export function authorizePayout(ctx: AuthedCtx, amount: number): void {
  if (!b2cSwitchedOn(ctx.deps, ctx.tenant)) {
    throw new DomainError("FORBIDDEN", b2cSettingsOf(ctx.tenant).enabled === false ? "payouts.switched_off" : "payouts.not_switched_on");
  }
  if (!ctx.deps.daraja.hasPayoutAccount(ctx.tenant)) throw providerUnavailable("payouts.not_configured");
  const { maxAmount } = b2cSettingsOf(ctx.tenant);
  if (maxAmount !== undefined && amount > maxAmount) throw amountError({ key: "detail.payout_over_max", params: { max: maxAmount } });
}

type PayoutRow = payouts.NewPayout & { tenantId: string; requestedBy: string; amount: number; createdAt: Date };

/**
 * Stores a new payout row, within the tenant's daily limit: shillings of its payouts and refunds by B2C
 * that are not FAILED, per Nairobi day. The tenant's row is locked while summing and storing, so
 * payouts and refunds at once are counted one after the other and cannot together pass the limit.
 */
export async function storePayoutWithinDailyLimit(ctx: AuthedCtx, { data }: { data: PayoutRow }): Promise<PayoutModel> {
  const { db } = ctx;
  const { dailyLimit } = b2cSettingsOf(ctx.tenant);
  if (dailyLimit === undefined) return payouts.create(db, data);
  return ctx.deps.db.transaction(db, async (tx) => {
    // A retry with the same Idempotency-Key is not a new payout: its create fails on the key and is replayed.
    const { tenantId, requestedBy, idempotencyKey } = data;
    const left = await b2cLeftToday(tx, ctx.tenant, data.createdAt);
    const retried = idempotencyKey
      ? await payouts.findByIdempotencyKey(tx, { tenantId, requestedBy, idempotencyKey })
      : null;
    if (!retried && left !== undefined && data.amount > left) {
      throw amountError({ key: "detail.payout_over_daily_limit", params: { limit: dailyLimit, left: Math.max(0, left) } });
    }
    return payouts.create(tx, data);
  });
}
