/**
 * Each shop's B2C switch and daily limit (settings.momo.b2c = { enabled, maxAmount, dailyLimit },
 * docs/mpesa.md "Payouts per shop"): a payout (payouts/) and a refund sent by B2C (refunds/) both leave
 * the shop's B2C account, so both go through the same switch and count against the same day.
 */
import { payouts, refunds, type TenantTx } from "@mteja/db";
import type { Tenant } from "../../shared/tenant.js";
import { nairobiDayStart } from "./nairobi-day.js";
import type { PaymentPorts } from "./ports.js";

export function b2cSettingsOf(tenant: Tenant) {
  return tenant.settings.momo?.b2c ?? {};
}

/**
 * Off unless switched on, except for the default tenant, which sends by B2C by default when it has an
 * account to send from (the platform's B2C settings, or its own).
 */
export function b2cSwitchedOn(deps: Pick<PaymentPorts, "config" | "daraja">, tenant: Tenant): boolean {
  const enabled = b2cSettingsOf(tenant).enabled;
  if (enabled !== undefined) return enabled;
  return tenant.id === deps.config.defaultTenantId && deps.daraja.b2cEnabled && deps.daraja.hasPayoutAccount(tenant);
}

/**
 * What the shop may still send by B2C in the Nairobi day of `at`: its daily limit less its payouts and
 * refunds by B2C of that day that are not FAILED (PENDING and UNKNOWN ones included); undefined without a
 * daily limit. Locks the shop's B2C day first (its tenant row), so two requests at once are counted one
 * after the other: call it in the transaction that stores the new row.
 */
export async function b2cLeftToday(tx: TenantTx, tenant: Tenant, at: Date): Promise<number | undefined> {
  const { dailyLimit } = b2cSettingsOf(tenant);
  if (dailyLimit === undefined) return undefined;
  await payouts.lockTenantPayouts(tx, tenant.id);
  const since = nairobiDayStart(at);
  const sent = await payouts.sumSince(tx, { tenantId: tenant.id, excludingStatus: "FAILED", since });
  const refunded = await refunds.sumSince(tx, { tenantId: tenant.id, method: "b2c", excludingStatus: "FAILED", since });
  return dailyLimit - sent - refunded;
}
