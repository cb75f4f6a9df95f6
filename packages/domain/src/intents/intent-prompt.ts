/**
 * Paying an intent with an STK prompt (docs/payment-intents.md#paying-an-intent): stkpush
 * `{ phone, intent_id }` takes amount, reference and description from the intent, and the intent goes to
 * `processing` in the transaction that stores the payment, before Daraja is called.
 */
import { intents, payments, type PaymentModel, type TenantDb } from "@mteja/db";
import type { Text } from "@mteja/i18n";
import { DomainError } from "../shared/errors.js";
import type { AuthedCtx } from "./ports.js";
import { dueIntents, expireFoundIntents } from "./intent-expiry.js";
import { statusesAllowing } from "./intent-transitions.js";
import { intentNotFound } from "./service.js";

/** What a prompt for an intent asks for (the intent's terms, not the customer's). */
export interface IntentTerms {
  intentId: string;
  /** The intent's mode, which its payment takes (docs/test-mode.md). */
  livemode: boolean;
  amount: number;
  reference: string;
  description: string | null;
}

function invalid(path: string, message: Text): DomainError {
  return new DomainError("VALIDATION_ERROR", undefined, { details: [{ path, message }] });
}

/**
 * The intent a prompt pays, or undefined for a prompt without one (refused when the shop requires
 * intents). Its status is checked when the payment is stored (storePromptForIntent), so a retry with
 * the same Idempotency-Key still replays its first answer.
 */
export async function intentTermsForPrompt(ctx: AuthedCtx, input: { intent_id?: string | undefined; amount?: number | undefined }): Promise<IntentTerms | undefined> {
  if (input.intent_id === undefined) {
    if (ctx.tenant.settings.momo?.requireIntent === true) throw invalid("intent_id", "detail.intent_required");
    return undefined;
  }
  const now = ctx.deps.clock.now();
  const { intent, anyDue } = await intents.findRowAndAnyDue(ctx.db, input.intent_id, dueIntents(now));
  // Expired first, as before any read of an intent (this one too: its prompt is then refused as not payable).
  if (anyDue) await expireFoundIntents(ctx.deps.db, ctx.db, now);
  // An intent bound to another customer is not theirs to see.
  if (!intent || (intent.userId !== null && intent.userId !== ctx.auth.sub)) throw intentNotFound();
  if (input.amount !== undefined && input.amount !== intent.amount) throw invalid("amount", { key: "detail.amount_not_intents", params: { amount: intent.amount } });
  return { intentId: intent.id, livemode: intent.livemode, amount: intent.amount, reference: intent.reference, description: intent.description };
}

/**
 * Stores the prompt's payment and takes the intent to `processing` in one statement; an intent that is
 * not `requires_payment` (or is past expires_at by the payment's created_at) is 409 INTENT_NOT_PAYABLE
 * and nothing is stored.
 */
export async function storePromptForIntent(db: TenantDb, intentId: string, row: payments.NewPrompt): Promise<PaymentModel> {
  const stored = await payments.createPromptForIntent(db, row, { intentId, from: statusesAllowing("prompt_started"), to: "processing" });
  if (!stored) throw new DomainError("INTENT_NOT_PAYABLE");
  return stored;
}
