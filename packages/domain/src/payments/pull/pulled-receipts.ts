/**
 * Applying what Pull Transactions listed (docs/mpesa.md#recovery): each receipt Mteja does not hold is
 * applied exactly as its C2B confirmation would have been (shared/received-payments.ts: the intent its
 * account names, else kept unmatched), stored first like a callback (kind `pull_transaction`, the row as
 * Daraja sent it), with two exceptions for Lipa na M-Pesa prompts to the same short code:
 *
 * - a SUCCESS STK payment of the shop with no receipt (settled by an STK query, which brings none) that
 *   the row matches (account reference, amount, and phone where the row shows a full one; created in the
 *   window pulled or the hour before it, and before the row's time) only gets the receipt filled in;
 *   two such payments flag the row instead, for a person to tell them apart;
 * - a PENDING one it matches is left to its query: the row is not applied, and comes back in the next pull.
 *
 * A receipt already held, whichever channel brought it, is skipped before anything is stored, as is one
 * already flagged; the database's receipt index is what makes a race of two channels count it once.
 */
import {
  isPulledPayment,
  maskMsisdn,
  msisdnForm,
  normaliseKenyanPhone,
  darajaTimestamp,
  type C2bNotification,
  type PulledTransaction,
} from "@mteja/daraja";
import { callbacks, payments } from "@mteja/db";
import type { Tenant } from "../../shared/tenant.js";
import { receivedPaymentIntents } from "../../intents/received-payment.js";
import type { PaymentPorts } from "../shared/ports.js";
import { applyStoredReceivedPayment, type ReceivedPaymentRules } from "../shared/received-payments.js";
import type { CallbackVerdict, SettlementTx } from "../shared/stored-callback.js";

/** The kind a pulled row is stored under in momo_callbacks (it arrived in an answer, not a callback). */
export const PULLED_TRANSACTION_KIND = "pull_transaction";

/** STK payments created this long before the window pulled are still its candidates. */
const CANDIDATES_BEFORE_WINDOW_MS = 60 * 60 * 1000;
/** A prompt is created before it is paid; Pull's times are whole seconds on Daraja's clock, which may lag ours. */
const CLOCKS_APART_MS = 60 * 1000;

export interface PullWindow {
  from: Date;
  to: Date;
}

/** What applying a pull came to. */
export interface PulledCount {
  /** Rows Daraja listed (each receipt once). */
  pulled: number;
  /** Receipts Mteja did not hold and now does: a new payment, or an STK payment's receipt filled in. */
  recovered: number;
  /** The earliest row left to a pending STK payment's query (the next window must start before it). */
  deferredFrom: Date | null;
}

/** A pulled row as the C2B confirmation of the same payment would have carried it. */
export function asNotification(row: PulledTransaction, shortCode: string): C2bNotification {
  const buyGoods = row.transactionType.trim().toLowerCase() === "c2b-buy-goods-debit";
  return {
    transactionType: buyGoods ? "Buy Goods" : "Pay Bill",
    transId: row.transactionId,
    transTime: row.at ? darajaTimestamp(row.at) : "",
    amount: row.amount,
    businessShortCode: shortCode,
    billRefNumber: row.billReference,
    invoiceNumber: "",
    orgAccountBalance: "",
    thirdPartyTransId: "",
    msisdnForm: msisdnForm(row.msisdn),
    // Masked like a confirmation's, whatever form Pull showed it in.
    maskedMsisdn: maskMsisdn(row.msisdn),
    firstName: row.sender,
  };
}

/** The payer's full number when the row shows one; null when masked, hashed or absent. */
function fullPhone(row: PulledTransaction): string | null {
  return msisdnForm(row.msisdn) === "plain" ? normaliseKenyanPhone(row.msisdn) : null;
}

function stkMatch(
  tenant: Tenant,
  row: PulledTransaction,
  window: PullWindow,
  status: "SUCCESS" | "PENDING",
): payments.StkPaymentMatch {
  return {
    tenantId: tenant.id,
    status,
    reference: row.billReference.trim(),
    amount: row.amount,
    phone: fullPhone(row),
    createdFrom: new Date(window.from.getTime() - CANDIDATES_BEFORE_WINDOW_MS),
    createdUntil: new Date((row.at ?? window.to).getTime() + CLOCKS_APART_MS),
  };
}

/** Pull's `claimedBy`: the SUCCESS STK payment without a receipt this row is, its receipt filled in. */
function stkPaymentClaiming(row: PulledTransaction, window: PullWindow): ReceivedPaymentRules["claimedBy"] {
  type Claim = CallbackVerdict<{ recorded: true }> | undefined;
  return async (tx: SettlementTx, tenant: Tenant, notification: C2bNotification, now: Date): Promise<Claim> => {
    if (notification.billRefNumber.trim() === "" || !Number.isInteger(row.amount)) return undefined;
    const candidates = await payments.lockStkWithoutReceipt(tx, stkMatch(tenant, row, window, "SUCCESS"), 2);
    const [only, second] = candidates;
    if (!only) return undefined;
    if (second) {
      const flagReason =
        `receipt ${row.transactionId} matches ${candidates.length} STK payments without a receipt ` +
        "(reference, amount, phone): not applied";
      return { recorded: true, outcome: "flagged", flagReason, link: {} };
    }
    const phone = only.paidPhone === null ? fullPhone(row) : null;
    const transactionDate = notification.transTime || null;
    const receipt = { mpesaReceipt: row.transactionId, paidAmount: only.amount, transactionDate, updatedAt: now };
    await payments.settle(tx, only, { ...receipt, ...(phone ? { paidPhone: phone } : {}) });
    return { recorded: true, outcome: "applied", link: { paymentId: only.id }, settled: { recorded: true } };
  };
}

/**
 * Applies the rows of one pull of `tenant`'s short code over `window`; counts what it pulled and
 * recovered. Rows that are no payment (a settlement sweep) are counted, never credited.
 */
export async function applyPulled(
  deps: PaymentPorts,
  tenant: Tenant,
  shortCode: string,
  rows: readonly PulledTransaction[],
  window: PullWindow,
): Promise<PulledCount> {
  const count: PulledCount = { pulled: rows.length, recovered: 0, deferredFrom: null };
  const ids = rows.map((row) => row.transactionId);
  // Daraja's records name no tenant: a receipt is looked up across shops (it is unique across them).
  const db = deps.db.unscoped("daraja-callback");
  const held = await payments.knownReceipts(db, ids);
  const flagged = await callbacks.storedWithOutcome(db, {
    kind: PULLED_TRANSACTION_KIND,
    tokenTenantId: tenant.id,
    correlationIds: ids.filter((id) => !held.has(id)),
    outcomes: ["flagged"],
  });
  for (const row of rows) {
    if (held.has(row.transactionId) || flagged.has(row.transactionId)) continue;
    if (!isPulledPayment(row)) {
      const fields = { tenantId: tenant.id, transactionId: row.transactionId, type: row.transactionType };
      deps.logger.info(fields, "pulled row is not a payment: not credited");
      continue;
    }
    if (await payments.anyStkWithoutReceipt(db, stkMatch(tenant, row, window, "PENDING"))) {
      // Its prompt is still settled by its query; the receipt is filled in by a pull after that.
      const at = row.at ?? window.to;
      if (count.deferredFrom === null || at < count.deferredFrom) count.deferredFrom = at;
      continue;
    }
    const stored = await callbacks.store(db, {
      kind: PULLED_TRANSACTION_KIND,
      rawBody: JSON.stringify(row.raw),
      sourceIp: null,
      receivedAt: deps.clock.now(),
      outcome: "accepted",
      correlationId: row.transactionId,
      flagReason: null,
      accountReference: null,
      tokenTenantId: tenant.id,
    });
    const applied = await applyStoredReceivedPayment(deps, stored, tenant, asNotification(row, shortCode), {
      intents: receivedPaymentIntents,
      claimedBy: stkPaymentClaiming(row, window),
      resultDesc: "Recovered by Pull Transactions",
    });
    if (applied.recorded) count.recovered += 1;
  }
  return count;
}
