/**
 * POST /api/v1/payment-intents/{id}/qr (docs/payment-intents.md#pay-by-qr): the QR code a customer scans
 * in the M-Pesa app to pay an intent, from Daraja's Dynamic QR API: a paybill payment (TrxCode PB) to
 * the shop's paybill short code (CPI), of the intent's amount, carrying its reference as the account
 * (RefNo). The payment made by scanning reaches Mteja as a C2B confirmation (or, when that is lost, by
 * Pull) and pays the intent as any paybill payment naming it does. A shop paid through a till only has
 * no QR code here: a till payment carries no account to match it to its intent. Nothing is stored:
 * a QR code moves no money, and another one can be asked for at any time.
 */
import { DarajaError } from "@mteja/daraja";
import { intents } from "@mteja/db";
import { DomainError } from "../../shared/errors.js";
import { expireDueIntents } from "../../intents/intent-expiry.js";
import { isDueToExpire, isIntentStatus } from "../../intents/intent-transitions.js";
import { intentNotFound } from "../../intents/service.js";
import type { TenantCtx } from "../shared/ports.js";
import { providerUnavailable, toProviderError } from "../shared/provider-errors.js";
import { liveMoney } from "../shared/money-mode.js";
import { c2bShortCodeOf } from "../shared/short-codes.js";
import { QR_DEFAULT_SIZE, type IntentQrInput, type IntentQrView } from "./schemas.js";

/** Daraja shows the payer the merchant's name; it takes at most this many characters (as a bank statement). */
const MERCHANT_NAME_MAX = 50;

function tillOnly(): DomainError {
  return new DomainError("VALIDATION_ERROR", "qr.till_only", {
    details: [{ path: "settings.momo.transactionType", message: "detail.qr_needs_paybill" }],
  });
}

export async function intentQr(ctx: TenantCtx, input: IntentQrInput): Promise<IntentQrView> {
  const { deps, tenant, db } = ctx;
  const now = deps.clock.now();
  await expireDueIntents(deps.db, db, now);
  const intent = await intents.find(db, input.id);
  if (!intent) throw intentNotFound();

  const daraja = deps.daraja.darajaFor(tenant, liveMoney);
  if (!daraja) throw providerUnavailable("qr.not_configured");
  const paybill = c2bShortCodeOf(deps, tenant);
  if (daraja.transactionType !== "CustomerPayBillOnline" || !paybill) throw tillOnly();
  const waiting = isIntentStatus(intent.status) && intent.status === "requires_payment";
  const payable = waiting && !isDueToExpire({ status: "requires_payment", expiresAt: intent.expiresAt }, now);
  if (!payable) throw new DomainError("INTENT_NOT_PAYABLE");

  const merchantName = (tenant.settings.displayName ?? tenant.name).slice(0, MERCHANT_NAME_MAX);
  try {
    const qr = await daraja.dynamicQr({
      merchantName,
      refNo: intent.reference,
      amount: intent.amount,
      trxCode: "PB",
      cpi: paybill,
      size: input.size ?? QR_DEFAULT_SIZE,
    });
    return { qr_code: qr.qrCode, ref_no: intent.reference, amount: intent.amount, trx_code: "PB" };
  } catch (error) {
    if (error instanceof DarajaError) throw toProviderError(error);
    throw error;
  }
}
