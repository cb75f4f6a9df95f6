/**
 * C2B's two callbacks (docs/mpesa.md#c2b), after callbacks.ts checked the token and stored the body:
 *
 * - validation: answers accept, or Daraja's rejection code (C2B00012 invalid account, C2B00013
 *   invalid amount), from the intent the BillRefNumber names; a tenant with
 *   settings.momo.c2b.validate = false accepts everything. It changes nothing.
 * - confirmation: the money has moved. Applied once per TransID (shared/stored-callback.ts): a new
 *   payment row (channel c2b, SUCCESS) that pays its intent through the same apply-once settlement
 *   as STK (intents/intent-settlement.ts), or is kept as a duplicate or unmatched. A confirmation
 *   without a validation before it (Daraja skips validation unless it is enabled) is the same. A
 *   TransID another shop has recorded is flagged and linked to nothing (docs/mpesa.md#confirmation-and-states).
 */
import { c2bValidationAnswer, type C2bNotification } from "@mteja/daraja";
import { isUniqueViolation } from "@mteja/db";
import type { PaymentPorts } from "../shared/ports.js";
import type { Tenant } from "../../shared/tenant.js";
import type { CallbackAuthority } from "../shared/callback-tokens.js";
import { settleIntentOf } from "../../intents/intent-settlement.js";
import { recordEvent } from "../../webhooks/events.js";
import { recordPaymentSettled } from "../../intents/intent-events.js";
import {
  applyStoredCallback,
  refusedVerdict,
  type CallbackVerdict,
  type SettlementTx,
  type StoredApplyResult,
} from "../shared/stored-callback.js";
import { matchC2bConfirmation, validateC2bPayment } from "./c2b-matching.js";
import { c2bPaymentObject } from "./c2b-object.js";
import { insertC2bPayment, intentNamedBy, paymentWithTransId } from "./c2b-records.js";
import { c2bRefusal, tenantForShortCode } from "./c2b-tenant.js";

export type ValidationAnswer =
  | {
      body: { ResultCode: string; ResultDesc: string };
      /** Why it was rejected (kept on the stored callback); undefined when accepted. */
      rejection?: string;
    }
  /** Its token does not speak for the shop its short code names: refused (403), nothing answered to Daraja. */
  | { refused: string };

export async function answerC2bValidation(deps: PaymentPorts, authority: CallbackAuthority, notification: C2bNotification): Promise<ValidationAnswer> {
  const tenant = await tenantForShortCode(deps, notification.businessShortCode);
  if (!tenant) return { body: c2bValidationAnswer("C2B00015"), rejection: "C2B00015: no single shop has this short code" };
  const refused = await c2bRefusal(deps.db.unscoped("daraja-callback"), authority, tenant);
  if (refused !== undefined) return { refused };
  if (tenant.settings.momo?.c2b?.validate === false) return { body: c2bValidationAnswer() };
  const intent = await intentNamedBy(deps.db.unscoped("daraja-callback"), tenant.id, notification.billRefNumber, false);
  const decision = validateC2bPayment(intent, notification.amount, deps.clock.now());
  if (decision.accept) return { body: c2bValidationAnswer() };
  return { body: c2bValidationAnswer(decision.code), rejection: `${decision.code}: ${decision.reason}` };
}

/** A confirmation kept as an unmatched payment: money no intent took (its stored callback is kept whatever its age). */
interface KeptUnmatched {
  keptUnmatched: true;
}

async function confirmationVerdict(
  tx: SettlementTx,
  authority: CallbackAuthority,
  tenant: Tenant | null,
  notification: C2bNotification,
  paymentId: string,
  now: Date,
): Promise<CallbackVerdict<KeptUnmatched | undefined>> {
  if (!tenant) return { recorded: true, outcome: "flagged", flagReason: `no single shop has short code ${notification.businessShortCode}`, link: {} };
  const refused = await c2bRefusal(tx, authority, tenant);
  if (refused !== undefined) return refusedVerdict(refused);
  const earlier = await paymentWithTransId(tx, tenant.id, notification.transId);
  if (earlier.holder === "this shop") return { recorded: true, outcome: "duplicate", link: { paymentId: earlier.payment.id } };
  // Never linked to the other shop's row, nor counted here: the same receipt is one payment, in one shop.
  if (earlier.holder === "another shop") return { recorded: true, outcome: "flagged", flagReason: "TransID already recorded by another shop: not applied", link: {} };

  const intent = await intentNamedBy(tx, tenant.id, notification.billRefNumber, true);
  const match = matchC2bConfirmation(intent, notification.amount, now);
  const fields = { id: paymentId, tenantId: tenant.id, notification, now };
  if (match.match === "unmatched") {
    const payment = await insertC2bPayment(tx, { ...fields, match: "unmatched", intentId: null, duplicate: false, note: match.note });
    await recordEvent(tx, { tenantId: tenant.id, type: "c2b_payment.unmatched", data: { c2b_payment: c2bPaymentObject(payment) }, at: now });
    const link = { paymentId: payment.id };
    const settled = { keptUnmatched: true as const };
    return match.flagged ? { recorded: true, outcome: "flagged", flagReason: match.note, link, settled } : { recorded: true, outcome: "applied", link, settled };
  }
  // The intent moves first (locked above); a success that finds it already paid comes back a duplicate.
  const settled = match.duplicate ? { duplicate: true as const } : (await settleIntentOf(tx, { tenantId: tenant.id, intentId: match.intentId }, "SUCCESS", now)).columns;
  const duplicate = settled.duplicate === true;
  const note = match.duplicate ? match.note : duplicate ? "a second payment for an intent that is already succeeded" : null;
  const payment = await insertC2bPayment(tx, { ...fields, match: "matched", intentId: match.intentId, duplicate, note });
  await recordPaymentSettled(tx, payment, now);
  const link = { paymentId: payment.id };
  return duplicate ? { recorded: true, outcome: "flagged", flagReason: note ?? "duplicate payment", link } : { recorded: true, outcome: "applied", link };
}

/**
 * Applies a stored confirmation once. Two copies of one confirmation racing each other both miss the
 * TransID; the second insert then violates its unique index, and applying again finds the first.
 * Says too whether it was kept unmatched.
 */
export async function applyStoredC2bConfirmation(
  deps: PaymentPorts,
  callbackId: string,
  authority: CallbackAuthority,
  notification: C2bNotification,
): Promise<{ result: StoredApplyResult; keptUnmatched: boolean }> {
  // Found before the transaction: the embedded database has one connection, which the transaction holds.
  const tenant = await tenantForShortCode(deps, notification.businessShortCode);
  const apply = () =>
    applyStoredCallback(deps, callbackId, { transId: notification.transId, shortCode: notification.businessShortCode }, (tx, now) =>
      confirmationVerdict(tx, authority, tenant, notification, deps.random.uuid(), now),
    );
  const outcome = async () => {
    const applied = await apply();
    return { result: applied.result, keptUnmatched: applied.settled?.keptUnmatched === true };
  };
  try {
    return await outcome();
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    return outcome();
  }
}
