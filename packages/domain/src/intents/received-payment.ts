/**
 * What a payment made to the shop's short code does to the intent its account names
 * (payments/shared/received-payments.ts applies it; C2B confirmations and Pull's recovered receipts
 * hand it this): the intent is found by its reference and locked, matched by the pure rule
 * (received-payment-matching.ts), moved by the state machine, and followed by its events.
 */
import { intents, type UnscopedDb } from "@mteja/db";
import type { NamedIntent } from "../payments/shared/received-payments.js";
import type { SettlementTx } from "../payments/shared/stored-callback.js";
import type { ReceivedPaymentIntents } from "../payments/shared/received-payments.js";
import { recordPaymentSettled } from "./intent-events.js";
import { settleIntentOf } from "./intent-settlement.js";
import { openIntentStatuses } from "./intent-transitions.js";
import { matchC2bConfirmation } from "./received-payment-matching.js";

/** An account is an intent's reference only when it could be one (docs/payment-intents.md). */
export function referenceOf(account: string): string | null {
  const reference = account.trim();
  return /^[A-Za-z0-9]{1,12}$/.test(reference) ? reference : null;
}

/**
 * The intent an account names for this tenant: its open one with that reference (at most one, a
 * partial unique index), else the latest with it. Locked when `lock` (a payment settles it).
 */
export async function intentNamedBy(
  sql: UnscopedDb | SettlementTx,
  tenantId: string,
  account: string,
  lock: boolean,
): Promise<NamedIntent | null> {
  const reference = referenceOf(account);
  if (reference === null) return null;
  // Money received from the M-Pesa menu, a QR code or a pull is live (docs/test-mode.md#live-only): it pays
  // a live intent, never a test one with the same reference.
  const named = { tenantId, livemode: true, reference, openStatuses: openIntentStatuses, lock };
  return (await intents.findNamedBy(sql, named)) ?? null;
}

export const receivedPaymentIntents: ReceivedPaymentIntents = {
  namedBy: (tx, tenantId, account) => intentNamedBy(tx, tenantId, account, true),
  match: matchC2bConfirmation,
  async settle(tx, key, now) {
    return (await settleIntentOf(tx, key, "SUCCESS", now)).columns;
  },
  recordSettled: recordPaymentSettled,
};
