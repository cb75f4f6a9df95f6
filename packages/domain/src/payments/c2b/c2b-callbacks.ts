/**
 * C2B's two callbacks (docs/mpesa.md#c2b), after callbacks.ts checked the token and stored the body:
 *
 * - validation: answers accept, or Daraja's rejection code (C2B00012 invalid account, C2B00013
 *   invalid amount), from the intent the BillRefNumber names; a tenant with
 *   settings.momo.c2b.validate = false accepts everything. It changes nothing.
 * - confirmation: the money has moved. Applied once per receipt as every payment made to the short
 *   code is (shared/received-payments.ts, which Pull's recovered receipts go through too): a new payment
 *   row (channel c2b, SUCCESS) that pays its intent through the same apply-once settlement as STK
 *   (intents/intent-settlement.ts), or is kept as a duplicate or unmatched. A confirmation without a
 *   validation before it (Daraja skips validation unless it is enabled) is the same. A receipt another
 *   shop has recorded is flagged and linked to nothing (docs/mpesa.md#confirmation-and-states).
 */
import { c2bValidationAnswer, type C2bNotification } from "@mteja/daraja";
import type { PaymentPorts } from "../shared/ports.js";
import type { CallbackAuthority } from "../shared/callback-tokens.js";
import { intentNamedBy, receivedPaymentIntents } from "../../intents/received-payment.js";
import { validateC2bPayment } from "../../intents/received-payment-matching.js";
import { applyStoredReceivedPayment } from "../shared/received-payments.js";
import type { StoredApplyResult } from "../shared/stored-callback.js";
import { tenantForShortCode } from "../shared/short-codes.js";
import { c2bRefusal } from "./c2b-tenant.js";

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

/** Applies a stored confirmation once; says too whether it was kept unmatched. */
export async function applyStoredC2bConfirmation(
  deps: PaymentPorts,
  callbackId: string,
  authority: CallbackAuthority,
  notification: C2bNotification,
): Promise<{ result: StoredApplyResult; keptUnmatched: boolean }> {
  // Found before the transaction: the embedded database has one connection, which the transaction holds.
  const tenant = await tenantForShortCode(deps, notification.businessShortCode);
  return applyStoredReceivedPayment(deps, callbackId, tenant, notification, {
    intents: receivedPaymentIntents,
    refusal: (tx, owner) => c2bRefusal(tx, authority, owner),
  });
}
