/**
 * Daraja's callbacks (docs/mpesa.md#callbacks): STK results, B2C results, B2C timeouts and Transaction Status
 * results. Each one is
 *
 *  1. checked for the secret `?token=` (constant time; missing or wrong → 403, stored as 'rejected' up to
 *     the unauthenticated_callbacks_stored limit, 60 a minute by default);
 *  2. stored verbatim in momo_callbacks before anything else (bad JSON or shape → 400, 'malformed');
 *  3. applied exactly once in a transaction holding the payment's (payout's) row lock, and the stored
 *     row records what it did: applied | duplicate | flagged (with flag_reason) | accepted;
 *  4. answered `{ "ResultCode": 0, "ResultDesc": "Accepted" }` only after that commit.
 *
 * An STK callback can arrive before the stkpush response has stored its CheckoutRequestID. While a
 * prompt is in flight such a callback is kept ('accepted', no payment yet): stkPush applies it right
 * after storing the ids, and the reconciler flags it if no payment claims it within the hold window.
 * A callback for a CheckoutRequestID that was never stored (the push's outcome was unknown) settles
 * the one payment without ids that its phone, amount and reference match (unknown-prompts.ts).
 */
import {
  classifyB2cResultCode,
  classifyStkResultCode,
  classifyTransactionStatusResult,
  parseB2cResult,
  parseB2cTimeout,
  parseStkCallback,
  parseTransactionStatusResult,
  type StkCallback,
} from "@mteja/daraja";
import type { PaymentModel } from "@mteja/db";
import type { Deps } from "../context.js";
import { equalsConstantTime } from "../core/secrets.js";
import { lockPaymentByCheckoutId, lockPayout, type Tx } from "./payment-records.js";
import { settlePayout, type PayoutOutcome } from "./payouts/payout-settlement.js";
import { settleStkPayment, type CallbackOutcome, type StkOutcome } from "./stk/stk-settlement.js";
import { claimForCallback, lockPromptMatching, referenceFromParameter, withoutDarajaIds } from "./stk/unknown-prompts.js";

export type CallbackKind = "stkpush" | "b2c_result" | "b2c_timeout" | "b2c_status";

export interface InboundCallback {
  kind: CallbackKind;
  rawBody: string;
  sourceIp: string;
  /** The `token` query parameter as received. */
  token: string | undefined;
  /** The `ref` query parameter as received (STK: the prompt's AccountReference, hex). */
  reference?: string | undefined;
}

export interface CallbackReply {
  status: number;
  body: unknown;
  /** Set when the token was missing or wrong: for the caller's metric and (rate-bounded) log line. */
  rejected?: RejectedCallback;
}

export interface RejectedCallback {
  reason: "no token" | "wrong token";
  /** Kept for audit, or not (over the unauthenticated_callbacks_stored limit). */
  stored: boolean;
}

/** A rejected (unauthenticated) callback's body is stored up to this length. */
const REJECTED_BODY_MAX_CHARS = 8 * 1024;

const ACCEPTED: CallbackReply = { status: 200, body: { ResultCode: 0, ResultDesc: "Accepted" } };

function errorReply(status: number, code: string, message: string): CallbackReply {
  return { status, body: { success: false, message, error: { code } } };
}

/** Whether the presented token is MOMO_CALLBACK_SECRET (compared in constant time). */
export function callbackTokenValid(secret: string | null, presented: string | undefined): boolean {
  if (!secret || presented === undefined) return false;
  return equalsConstantTime(presented, secret);
}

/**
 * PostgreSQL text cannot hold NUL. Daraja never sends one, so a body holding it (raw, or as a JSON
 * escape that would reach a column) is malformed; the stored copy shows each raw NUL as U+FFFD.
 */
const nulCharacter = /\u0000|\\u0000/i;

function storableText(text: string): string {
  return text.replace(/\u0000/g, "\ufffd");
}

async function store(
  deps: Deps,
  callback: InboundCallback,
  fields: { outcome: CallbackOutcome; correlationId?: string | null; flagReason?: string | null; accountReference?: string | undefined },
): Promise<string> {
  const row = await deps.db.prisma.momoCallback.create({
    data: {
      kind: callback.kind,
      rawBody: storableText(callback.rawBody),
      sourceIp: callback.sourceIp,
      receivedAt: deps.clock.now(),
      outcome: fields.outcome,
      correlationId: fields.correlationId ?? null,
      flagReason: fields.flagReason ?? null,
      accountReference: fields.accountReference ?? null,
    },
    select: { id: true },
  });
  return row.id;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

type Parsed =
  | { kind: "stkpush"; value: StkCallback; correlationId: string }
  | { kind: "b2c_result" | "b2c_timeout" | "b2c_status"; outcome: PayoutOutcome; ids: PayoutIds; correlationId: string | null };

interface PayoutIds {
  originatorConversationId?: string | undefined;
  conversationId?: string | undefined;
}

function parseCallback(kind: CallbackKind, body: unknown): { ok: true; value: Parsed } | { ok: false; error: string } {
  switch (kind) {
    case "stkpush": {
      const parsed = parseStkCallback(body);
      if (!parsed.ok) return parsed;
      return { ok: true, value: { kind, value: parsed.value, correlationId: parsed.value.checkoutRequestId } };
    }
    case "b2c_result": {
      const parsed = parseB2cResult(body);
      if (!parsed.ok) return parsed;
      const r = parsed.value;
      return {
        ok: true,
        value: {
          kind,
          ids: { originatorConversationId: r.originatorConversationId, conversationId: r.conversationId },
          correlationId: r.originatorConversationId,
          outcome: {
            source: "result",
            status: classifyB2cResultCode(r.resultCode),
            resultCode: r.resultCode,
            resultDesc: r.resultDesc,
            conversationId: r.conversationId,
            transactionId: r.receipt ?? r.transactionId ?? undefined,
            amount: r.amount,
            receiverName: r.receiverName,
          },
        },
      };
    }
    case "b2c_timeout": {
      const parsed = parseB2cTimeout(body);
      if (!parsed.ok) return parsed;
      const r = parsed.value;
      return {
        ok: true,
        value: {
          kind,
          ids: { originatorConversationId: r.originatorConversationId, conversationId: r.conversationId },
          correlationId: r.originatorConversationId,
          outcome: { source: "timeout", status: "UNKNOWN", resultCode: r.resultCode, resultDesc: r.resultDesc, conversationId: r.conversationId },
        },
      };
    }
    case "b2c_status": {
      const parsed = parseTransactionStatusResult(body);
      if (!parsed.ok) return parsed;
      const r = parsed.value;
      const t = r.transaction;
      return {
        ok: true,
        value: {
          kind,
          // The top-level ids are the status query's own; the queried payout is named in the parameters.
          ids: { originatorConversationId: t.originatorConversationId, conversationId: t.conversationId },
          correlationId: t.originatorConversationId ?? t.conversationId ?? null,
          outcome: {
            source: "status",
            status: classifyTransactionStatusResult(r),
            resultCode: r.resultCode,
            resultDesc: t.status ? `${r.resultDesc} Transaction status: ${t.status}.` : r.resultDesc,
            conversationId: t.conversationId,
            transactionId: t.receiptNo,
            amount: t.amount,
          },
        },
      };
    }
  }
}

/** Handles one inbound callback end to end and says how to answer it. */
export async function receiveCallback(deps: Deps, callback: InboundCallback): Promise<CallbackReply> {
  const { settings } = deps.momo;
  if (settings.callbackAllowedIps.length > 0 && !settings.callbackAllowedIps.includes(callback.sourceIp)) {
    // Log only: Safaricom's addresses change without notice; the secret token is the check that counts.
    deps.logger.warn({ kind: callback.kind, sourceIp: callback.sourceIp }, "momo callback from an address outside MOMO_CALLBACK_ALLOWED_IPS");
  }

  if (!callbackTokenValid(settings.callbackSecret, callback.token)) {
    const reason = callback.token === undefined ? "no token" : "wrong token";
    // Kept for audit, but bounded in size and number: anyone can post here without the secret.
    const { allowed: stored } = await deps.limiter.consume("unauthenticated_callbacks_stored", "all");
    if (stored) await store(deps, { ...callback, rawBody: callback.rawBody.slice(0, REJECTED_BODY_MAX_CHARS) }, { outcome: "rejected", flagReason: reason });
    return { ...errorReply(403, "FORBIDDEN", "This callback address needs its secret token."), rejected: { reason, stored } };
  }

  const json = parseJson(callback.rawBody);
  const parsed = nulCharacter.test(callback.rawBody)
    ? { ok: false as const, error: "the body holds a NUL character" }
    : json.ok
      ? parseCallback(callback.kind, json.value)
      : { ok: false as const, error: "the body is not valid JSON" };
  if (!parsed.ok) {
    const id = await store(deps, callback, { outcome: "malformed", flagReason: parsed.error.slice(0, 1000) });
    deps.logger.warn({ callbackId: id, kind: callback.kind, reason: parsed.error.slice(0, 200) }, "momo callback malformed");
    return errorReply(400, "MALFORMED_REQUEST", "The callback body is not a Daraja callback.");
  }

  const value = parsed.value;
  const accountReference = value.kind === "stkpush" ? referenceFromParameter(callback.reference) : undefined;
  const id = await store(deps, callback, { outcome: "accepted", correlationId: value.correlationId, accountReference });
  if (value.kind === "stkpush") await applyStoredStkCallback(deps, id, value.value);
  else await applyStoredPayoutCallback(deps, id, value.outcome, value.ids);
  return ACCEPTED;
}

export function stkOutcomeOf(callback: StkCallback): StkOutcome {
  return {
    source: "callback",
    status: classifyStkResultCode(callback.resultCode),
    resultCode: callback.resultCode,
    resultDesc: callback.resultDesc,
    amount: callback.amount,
    receipt: callback.mpesaReceiptNumber,
    phone: callback.phoneNumber,
    transactionDate: callback.transactionDate,
  };
}

interface UnappliedCallback {
  receivedAt: Date;
  accountReference: string | null;
}

/** Locks a stored callback that has not been applied yet; null when another path already handled it. */
async function lockUnapplied(tx: Tx, callbackId: string): Promise<UnappliedCallback | null> {
  const rows = await tx.$queryRaw<{ outcome: string; linked: boolean; received_at: Date; account_reference: string | null }[]>`
    SELECT outcome, (payment_id IS NOT NULL OR payout_id IS NOT NULL) AS linked, received_at, account_reference
      FROM momo_callbacks WHERE id = ${callbackId}::uuid FOR UPDATE`;
  const row = rows[0];
  if (row === undefined || row.outcome !== "accepted" || row.linked) return null;
  return { receivedAt: new Date(row.received_at), accountReference: row.account_reference };
}

/** A push still waiting for Daraja's answer (one whose outcome is unknown has a last_error). */
async function promptsInFlight(tx: Tx, now: Date, inFlightSeconds: number): Promise<boolean> {
  const since = new Date(now.getTime() - inFlightSeconds * 1000);
  const count = await tx.payment.count({ where: { ...withoutDarajaIds, lastError: null, createdAt: { gte: since } } });
  return count > 0;
}

type StkTarget = { kind: "payment"; payment: PaymentModel } | { kind: "held" } | { kind: "flagged"; flagReason: string };

/**
 * The payment a callback settles, locked. Prompts in flight are counted BEFORE the lookup: a push
 * that stores its ids in between is then either found or still counted (the callback is held and
 * applied by that push), never missed and flagged for good.
 */
async function stkTarget(tx: Tx, deps: Deps, callback: StkCallback, stored: UnappliedCallback, now: Date): Promise<StkTarget> {
  const { promptInFlightSeconds, unknownPromptWindowSeconds } = deps.momo.settings;
  const inFlight = await promptsInFlight(tx, now, promptInFlightSeconds);
  const payment = await lockPaymentByCheckoutId(tx, callback.checkoutRequestId);
  if (payment) return { kind: "payment", payment };
  const match = await lockPromptMatching(tx, callback, stored.accountReference ?? undefined, {
    since: new Date(stored.receivedAt.getTime() - unknownPromptWindowSeconds * 1000),
    receivedAt: stored.receivedAt,
    inFlightSince: new Date(now.getTime() - promptInFlightSeconds * 1000),
  });
  if (match.kind === "one") return { kind: "payment", payment: await claimForCallback(tx, match.payment, callback, now) };
  if (inFlight) return { kind: "held" };
  if (match.kind === "ambiguous") return { kind: "flagged", flagReason: `unknown CheckoutRequestID; phone, amount and reference match ${match.count} payments` };
  return { kind: "flagged", flagReason: "unknown CheckoutRequestID" };
}

export type StoredApplyResult = "applied" | "duplicate" | "flagged" | "accepted" | "held" | "skipped";

/**
 * Applies a stored STK callback (from the callback route, from stkPush after it stored the ids, or
 * from the reconciler). Idempotent: a callback already applied is skipped.
 */
export async function applyStoredStkCallback(deps: Deps, callbackId: string, callback: StkCallback): Promise<StoredApplyResult> {
  const now = deps.clock.now();
  const result = await deps.db.prisma.$transaction(async (tx) => {
    const stored = await lockUnapplied(tx, callbackId);
    if (!stored) return { result: "skipped" as const };
    const target = await stkTarget(tx, deps, callback, stored, now);
    if (target.kind === "held") return { result: "held" as const };
    if (target.kind === "flagged") {
      const { flagReason } = target;
      await tx.momoCallback.update({ where: { id: callbackId }, data: { outcome: "flagged", flagReason } });
      return { result: "flagged" as const, flagReason };
    }
    const { payment } = target;
    if (payment.merchantRequestId !== null && payment.merchantRequestId !== callback.merchantRequestId) {
      const flagReason = `MerchantRequestID mismatch: stored ${payment.merchantRequestId}, callback ${callback.merchantRequestId}`;
      await tx.momoCallback.update({ where: { id: callbackId }, data: { outcome: "flagged", flagReason, paymentId: payment.id } });
      return { result: "flagged" as const, flagReason };
    }
    const settlement = await settleStkPayment(tx, payment, stkOutcomeOf(callback), now);
    const { decision } = settlement;
    await tx.momoCallback.update({
      where: { id: callbackId },
      data: { outcome: decision.outcome, flagReason: decision.flagReason ?? null, paymentId: payment.id },
    });
    return { result: decision.outcome, flagReason: decision.flagReason, settlement };
  });
  if (result.result === "flagged") {
    deps.logger.warn({ callbackId, checkoutRequestId: callback.checkoutRequestId, flagReason: result.flagReason }, "momo callback flagged for review");
  }
  if ("settlement" in result && result.settlement?.decision.statusChanged) {
    const payment = result.settlement.payment;
    deps.momo.events.emit({ paymentId: payment.id, tenantId: payment.tenantId, checkoutRequestId: payment.checkoutRequestId, status: payment.status });
  }
  return result.result;
}

async function applyStoredPayoutCallback(deps: Deps, callbackId: string, outcome: PayoutOutcome, ids: PayoutIds): Promise<StoredApplyResult> {
  const now = deps.clock.now();
  const result = await deps.db.prisma.$transaction(async (tx) => {
    if (!(await lockUnapplied(tx, callbackId))) return { result: "skipped" as const };
    if (!ids.originatorConversationId && !ids.conversationId) {
      // A status query that failed or timed out names no payout: nothing to apply, the reconciler asks again.
      return { result: "accepted" as const };
    }
    const payout = await lockPayout(tx, ids);
    if (!payout) {
      const flagReason = "unknown OriginatorConversationID / ConversationID";
      await tx.momoCallback.update({ where: { id: callbackId }, data: { outcome: "flagged", flagReason } });
      return { result: "flagged" as const, flagReason };
    }
    const { decision } = await settlePayout(tx, payout, outcome, now);
    await tx.momoCallback.update({
      where: { id: callbackId },
      data: { outcome: decision.outcome, flagReason: decision.flagReason ?? null, payoutId: payout.id },
    });
    return { result: decision.outcome, flagReason: decision.flagReason };
  });
  if (result.result === "flagged") {
    deps.logger.warn({ callbackId, ...ids, flagReason: result.flagReason }, "momo callback flagged for review");
  }
  return result.result;
}

/** Re-reads a stored STK callback (it parsed when it was received). */
export function parseStoredStkCallback(rawBody: string): StkCallback | undefined {
  try {
    const parsed = parseStkCallback(JSON.parse(rawBody) as unknown);
    return parsed.ok ? parsed.value : undefined;
  } catch {
    return undefined;
  }
}

/** Applies the STK callbacks that arrived before their CheckoutRequestID was stored. */
export function applyHeldStkCallbacks(deps: Deps, checkoutRequestId: string): Promise<number> {
  return applyHeld(deps, { correlationId: checkoutRequestId });
}

/** Applies the STK callbacks kept since `since` (a push whose outcome turned out unknown may be theirs). */
export function applyHeldStkCallbacksSince(deps: Deps, since: Date): Promise<number> {
  return applyHeld(deps, { receivedAt: { gte: since } });
}

async function applyHeld(deps: Deps, where: { correlationId?: string; receivedAt?: { gte: Date } }): Promise<number> {
  const held = await deps.db.prisma.momoCallback.findMany({
    where: { kind: "stkpush", outcome: "accepted", paymentId: null, ...where },
    orderBy: { receivedAt: "asc" },
    take: 200,
    select: { id: true, rawBody: true },
  });
  let applied = 0;
  for (const row of held) {
    const parsed = parseStoredStkCallback(row.rawBody);
    if (!parsed) continue;
    const result = await applyStoredStkCallback(deps, row.id, parsed);
    if (result !== "skipped" && result !== "held") applied += 1;
  }
  return applied;
}
