/**
 * The erased customer's phone masked beyond their own rows (docs/data-rights.md#erasure): in the webhook
 * event bodies that show their payments, in the stored callbacks of their payments and in the texts sent
 * to them, as payments show it (`254******678`). Only this customer's, in this shop:
 *
 * - events: the shop's events that show one of the customer's payments (the masking goes by the
 *   payment's id, so a payment of another customer paid from the same phone keeps its number);
 * - callbacks: those Daraja sent about the customer's payments — their STK payments, the C2B payments
 *   of intents made out to them, and those payments' refunds (reversals, and B2C refunds whose result
 *   names the payer) — found by Daraja's ids of these rows
 *   (momo_callbacks.correlation_id), which are unique across shops (erased-callbacks.ts);
 * - texts: the shop's sent texts to the account's phones — every phone it has had, as its codes and
 *   texts name it (a code or text written for an account carries its id) — except those written for
 *   another account that has one of these phones since.
 *
 * Done in batches before the account's own transaction, each row written by its own short statement,
 * so no lock is held for long and a failure leaves the account as it was (the customer tries again;
 * masking twice changes nothing). The transaction then masks what was written meanwhile.
 */
import { dataRights, outboxes, webhooks, type TenantDb, type TenantTx } from "@mteja/db";
import type { TenantCtx } from "./ports.js";
import { maskStoredCallbacks } from "./erased-callbacks.js";
import { maskKnownPhones, maskPaymentPhonesInEvent, storedPhoneForms } from "./mask-evidence.js";
import { maskPhone } from "./mask-phone.js";

/** Rows read, and written one by one, per round trip. */
const evidenceBatchSize = 200;

/** Events written while the batches ran are looked for again from this long before they started. */
const meanwhileMarginMs = 60_000;

export interface ErasedEvidence {
  /** The customer's payments (STK, `user_id`): the payment objects to mask in events. */
  paymentIds: ReadonlySet<string>;
  /** Their phones as stored (not masked yet): an event showing one of them names it. */
  paymentPhones: string[];
  /** When the first of them was made: no event about them is older. */
  firstPaymentAt: Date | null;
  /** The account whose evidence it is. */
  userId: string;
  /**
   * Every phone the account has had, as far as Mteja keeps a trace of it: its phone, the phones of the
   * codes and texts written for it (a sign-in code, a code for a new phone, the notice of a change
   * texted to the old phone).
   */
  accountPhones: string[];
  /** Daraja's ids of their payments, of the C2B payments of their intents, and of those payments' refunds. */
  callbackIds: string[];
}

/** The rows the two evidence passes reach: the shop's client or its transaction. */
type EvidenceDb = TenantDb | TenantTx;

/** Reads what the customer's evidence is found by, before anything of the account changes. */
export async function erasedEvidenceOf(ctx: TenantCtx, user: { id: string; phone: string | null }): Promise<ErasedEvidence> {
  const payments = await dataRights.paymentsOfAccount(ctx.db, user.id);
  const own = payments.filter((payment) => payment.userId === user.id);
  const refunds = await dataRights.refundsOf(ctx.db, payments.map((payment) => payment.id));
  const codePhones = await dataRights.phonesCodedFor(ctx.db, user.id);
  const textPhones = await outboxes.phonesTextedFor(ctx.db, user.id);
  const present = (values: (string | null)[]) => [...new Set(values.filter((value): value is string => value !== null && value !== ""))];
  return {
    paymentIds: new Set(own.map((payment) => payment.id)),
    paymentPhones: present(own.flatMap((payment) => [payment.phone, payment.paidPhone])).filter((phone) => !phone.includes("*")),
    firstPaymentAt: own.reduce<Date | null>((first, payment) => (first === null || payment.createdAt < first ? payment.createdAt : first), null),
    userId: user.id,
    // Texts are addressed +2547…; a masked one (an earlier erasure's) names no phone.
    accountPhones: present([user.phone, ...codePhones, ...textPhones.map((phone) => phone.replace(/^\+/, ""))]).filter(
      (phone) => !phone.includes("*"),
    ),
    callbackIds: present([
      ...payments.flatMap((payment) => [payment.checkoutRequestId, payment.mpesaReceipt, payment.transId]),
      ...refunds.flatMap((refund) => [refund.originatorConversationId, refund.conversationId, refund.receipt]),
    ]),
  };
}

/** The batches, before the account's transaction; answers when they started (for `maskEvidenceWrittenMeanwhile`). */
export async function maskErasedEvidence(ctx: TenantCtx, evidence: ErasedEvidence, { batchSize = evidenceBatchSize } = {}): Promise<Date> {
  const startedAt = ctx.deps.clock.now();
  await maskStoredCallbacks(ctx.deps, evidence.callbackIds, [...evidence.accountPhones, ...evidence.paymentPhones], batchSize);
  await maskEventBodies(ctx.db, evidence, evidence.firstPaymentAt, batchSize);
  await maskSentTexts(ctx.db, evidence, batchSize);
  return startedAt;
}

/**
 * In the account's transaction: the events and texts written while the batches ran (a payment settling,
 * a text going out, at that moment). Afterwards nothing new names the phone: the payments are masked
 * and the account has no phone to text.
 */
export async function maskEvidenceWrittenMeanwhile(tx: TenantTx, evidence: ErasedEvidence, batchesStartedAt: Date): Promise<void> {
  await maskEventBodies(tx, evidence, new Date(batchesStartedAt.getTime() - meanwhileMarginMs), evidenceBatchSize);
  await maskSentTexts(tx, evidence, evidenceBatchSize);
}

/** The shop's events since `since` that show a payment of the customer's, their phone masked. */
async function maskEventBodies(db: EvidenceDb, evidence: ErasedEvidence, since: Date | null, batchSize: number): Promise<void> {
  if (since === null || evidence.paymentPhones.length === 0) return;
  // Candidates name one of the phones as a payment object writes it; the masking then goes by payment id.
  const fragments = evidence.paymentPhones.map((phone) => `"phone":${JSON.stringify(phone)}`);
  let after: webhooks.PageAfter | undefined;
  for (;;) {
    const rows = await webhooks.eventsContaining(db, { since, fragments, after, limit: batchSize });
    for (const row of rows) {
      const body = maskPaymentPhonesInEvent(row.body, evidence.paymentIds);
      if (body !== row.body) await webhooks.rewriteEventBody(db, row.id, body);
    }
    if (rows.length < batchSize) return;
    after = rows[rows.length - 1]!;
  }
}

/**
 * The shop's texts to the account's phones, theirs or no account's: not those written for another
 * account that has had one of these phones since. Undefined when it has no phone.
 */
export function textsToAccountPhones(evidence: ErasedEvidence): outboxes.AccountTexts | undefined {
  const recipients = storedPhoneForms(evidence.accountPhones);
  if (recipients.length === 0) return undefined;
  return { recipients, writtenFor: evidence.userId };
}

/**
 * The shop's sent texts to the account's phones: the recipient masked, and any of the customer's phones
 * in the body (bodies are blanked once sent in production). Unsent ones are the transaction's to delete.
 */
async function maskSentTexts(db: EvidenceDb, evidence: ErasedEvidence, batchSize: number): Promise<void> {
  const texts = textsToAccountPhones(evidence);
  if (texts === undefined) return;
  const phones = [...evidence.accountPhones, ...evidence.paymentPhones];
  for (;;) {
    // A masked row no longer matches, so each round reads the next ones.
    const rows = await outboxes.sentTexts(db, texts, batchSize);
    for (const row of rows) {
      const masked = { toPhone: maskPhone(row.toPhone), body: maskKnownPhones(row.body, phones) };
      await outboxes.rewriteText(db, row.id, masked);
    }
    if (rows.length < batchSize) return;
  }
}
