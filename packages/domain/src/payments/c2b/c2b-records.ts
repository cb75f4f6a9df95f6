/** The rows a C2B notification reads and writes, on the callback's transaction (each read names the tenant). */
import type { C2bNotification } from "@mteja/daraja";
import { intents, payments, type PaymentModel, type UnscopedDb } from "@mteja/db";
import type { SettlementTx } from "../shared/stored-callback.js";
import { openIntentStatuses } from "../../intents/intent-transitions.js";
import type { NamedIntent } from "./c2b-matching.js";

/**
 * The intent a BillRefNumber names for this tenant: its open one with that reference (at most one, a
 * partial unique index), else the latest with it. Locked when `lock` (confirmation settles it).
 */
export async function intentNamedBy(
  sql: UnscopedDb | SettlementTx,
  tenantId: string,
  account: string,
  lock: boolean,
): Promise<NamedIntent | null> {
  const reference = account.trim();
  if (!/^[A-Za-z0-9]{1,12}$/.test(reference)) return null;
  return (await intents.findNamedBy(sql, { tenantId, reference, openStatuses: openIntentStatuses, lock })) ?? null;
}

/** Who has already recorded a TransID: this tenant (its payment), another tenant (nothing of it), or nobody. */
export type TransIdHolder = { holder: "this shop"; payment: PaymentModel } | { holder: "another shop" } | { holder: "nobody" };

/**
 * The tenant's payment with this TransID, in one statement that also says whether another tenant has
 * recorded it (a TransID is one payment on the whole platform: payments_trans_id_key) without reading
 * anything of that tenant's row.
 */
export async function paymentWithTransId(tx: SettlementTx, tenantId: string, transId: string): Promise<TransIdHolder> {
  const { own, recordedElsewhere } = await payments.findByTransId(tx, { tenantId, transId });
  if (own) return { holder: "this shop", payment: own };
  return recordedElsewhere ? { holder: "another shop" } : { holder: "nobody" };
}

export interface NewC2bPayment {
  id: string;
  tenantId: string;
  notification: C2bNotification;
  match: "matched" | "unmatched";
  intentId: string | null;
  duplicate: boolean;
  note: string | null;
  now: Date;
}

/** A C2B payment is money already received: it is written SUCCESS, with its TransID as the receipt. */
export function insertC2bPayment(tx: SettlementTx, row: NewC2bPayment): Promise<PaymentModel> {
  const { notification: n, now } = row;
  return payments.insert(tx, {
    id: row.id,
    tenantId: row.tenantId,
    userId: null,
    phone: n.maskedMsisdn,
    amount: Math.round(n.amount),
    reference: n.billRefNumber.slice(0, 100),
    description: (n.transactionType || "C2B").slice(0, 100),
    status: "SUCCESS",
    resultCode: "0",
    resultDesc: "C2B confirmation",
    mpesaReceipt: n.transId,
    paidAmount: Math.round(n.amount),
    transactionDate: n.transTime || null,
    settledAt: now,
    createdAt: now,
    updatedAt: now,
    intentId: row.intentId,
    duplicate: row.duplicate,
    channel: "c2b",
    transId: n.transId,
    c2bMatch: row.match,
    c2bNote: row.note,
    shortCode: n.businessShortCode,
  });
}
