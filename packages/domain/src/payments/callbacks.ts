/**
 * Daraja's callbacks (docs/mpesa.md#callbacks): STK results, B2C results, B2C timeouts, Transaction Status
 * results, refund results (reversals and B2C refunds), time-outs and status results, and C2B validations and confirmations. Each one is
 *
 *  1. checked for its token (shared/callback-tokens.ts: the `tenant=` it names' own token, or the old form,
 *     MOMO_CALLBACK_SECRET itself; constant time; missing or wrong → 403, stored as 'rejected' up to
 *     the unauthenticated_callbacks_stored limit, 60 a minute by default);
 *  2. stored verbatim in momo_callbacks before anything else, with the tenant its token speaks for (bad
 *     JSON or shape → 400, 'malformed'); one that settles nothing beyond the shop's
 *     unmatched_callbacks_stored_per_tenant a minute has its body cut to 8 KiB (keptUnsettled, below);
 *  3. applied exactly once in a transaction holding the payment's (payout's) row lock, and the stored
 *     row records what it did: applied | duplicate | flagged (with flag_reason) | accepted — or
 *     rejected (403) when the token does not speak for the row it names (shared/callback-authority.ts);
 *  4. answered `{ "ResultCode": 0, "ResultDesc": "Accepted" }` only after that commit (C2B: the
 *     validation's accept or rejection code; the confirmation's `{ "ResultCode": 0, "ResultDesc": "Success" }`).
 *
 * Step 3 is shared/stored-callback.ts, with what each kind reads and settles declared by its flow
 * (`<flow>/flow.ts`, listed in flows.ts): the HTTP mount hands each callback the route it came in by,
 * so this file knows no flow, nor the registry.
 */
import { callbacks } from "@mteja/db";
import type { PaymentPorts } from "./shared/ports.js";
import { ACCEPTED_ANSWER, type CallbackHandling, type CallbackRoute, type ReadCallback, type StoredCallback } from "./shared/flow.js";
import type { CallbackOutcome, StoredApplyResult } from "./shared/stored-callback.js";

export interface InboundCallback {
  /** Its kind in the flow registry (payments/flows.ts): stored with it, the metrics' label. */
  kind: string;
  /** The registry's callback of that kind: how its body is read and applied. */
  route: CallbackRoute;
  rawBody: string;
  sourceIp: string;
  /** The `token` query parameter as received. */
  token: string | undefined;
  /** The `tenant` query parameter as received (the shop whose token the URL carries, hex). */
  tenant?: string | undefined;
  /** The `ref` query parameter as received (STK: the prompt's AccountReference, hex). */
  reference?: string | undefined;
  /** The `intent` query parameter was `1` (STK: the prompt paid an intent). */
  paysIntent?: boolean | undefined;
}

export interface CallbackReply {
  status: number;
  body: unknown;
  /** Set when the token was missing or wrong: for the caller's metric and (rate-bounded) log line. */
  rejected?: RejectedCallback;
  /** Set when a callback with a real token that settles nothing passed its shop's number: for the caller's (rate-bounded) log line. */
  overUnsettledLimit?: OverUnsettledLimit;
}

export interface OverUnsettledLimit {
  /** The shop whose token it carried; null: the old form (MOMO_CALLBACK_SECRET itself). */
  tenantId: string | null;
  /** Its body was longer than 8 KiB and is stored cut. */
  bodyCut: boolean;
}

export interface RejectedCallback {
  /** "wrong token" also when the token is a shop's but not the shop of what the callback names. */
  reason: "no token" | "wrong token";
  /** Kept for audit, or not (over the unauthenticated_callbacks_stored limit). */
  stored: boolean;
}

/**
 * A rejected (unauthenticated) callback's body is stored up to this length, and so is that of a callback
 * beyond its shop's number of those that settle nothing. Daraja's largest bodies (a Transaction Status
 * result) are under 2 KiB, so a real callback is never cut.
 */
const REJECTED_BODY_MAX_CHARS = 8 * 1024;

/** The body's first REJECTED_BODY_MAX_CHARS characters, never half of a surrogate pair (not storable as text). */
function cutBody(rawBody: string): string {
  if (rawBody.length <= REJECTED_BODY_MAX_CHARS) return rawBody;
  const cut = rawBody.slice(0, REJECTED_BODY_MAX_CHARS);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}

function errorReply(status: number, code: string, message: string): CallbackReply {
  return { status, body: { success: false, message, error: { code } } };
}

const FORBIDDEN_MESSAGE = "This callback address needs its secret token.";

/** A callback stored, then refused because its token does not speak for what it names. */
function refusedReply(): CallbackReply {
  return { ...errorReply(403, "FORBIDDEN", FORBIDDEN_MESSAGE), rejected: { reason: "wrong token", stored: true } };
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
  deps: PaymentPorts,
  callback: InboundCallback,
  fields: { outcome: CallbackOutcome; correlationId?: string | null; flagReason?: string | null; accountReference?: string | undefined; tokenTenantId?: string | null },
  storeWith?: ReadCallback["store"],
): Promise<{ id: string; receivedAt: Date }> {
  const receivedAt = deps.clock.now();
  const row: callbacks.StoredCallbackInsert = {
    kind: callback.kind,
    rawBody: storableText(callback.rawBody),
    sourceIp: callback.sourceIp,
    receivedAt,
    outcome: fields.outcome,
    correlationId: fields.correlationId ?? null,
    flagReason: fields.flagReason ?? null,
    accountReference: fields.accountReference ?? null,
    tokenTenantId: fields.tokenTenantId ?? null,
  };
  const id = await (storeWith ? storeWith(deps, row) : callbacks.store(deps.db.unscoped("daraja-callback"), row));
  return { id, receivedAt };
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/** Handles one inbound callback end to end and says how to answer it. */
export async function receiveCallback(deps: PaymentPorts, callback: InboundCallback): Promise<CallbackReply> {
  const { settings } = deps.daraja;
  if (settings.callbackAllowedIps.length > 0 && !settings.callbackAllowedIps.includes(callback.sourceIp)) {
    // Log only: Safaricom's addresses change without notice; the secret token is the check that counts.
    deps.logger.warn({ kind: callback.kind, sourceIp: callback.sourceIp }, "momo callback from an address outside MOMO_CALLBACK_ALLOWED_IPS");
  }

  const authority = deps.daraja.callbackTokens?.authenticate(callback.tenant, callback.token);
  if (!authority) {
    const reason = callback.token === undefined ? "no token" : "wrong token";
    // Kept for audit, but bounded in size and number: anyone can post here without the secret.
    const { allowed: stored } = await deps.limiter.consume("unauthenticated_callbacks_stored", "all");
    if (stored) await store(deps, { ...callback, rawBody: cutBody(callback.rawBody) }, { outcome: "rejected", flagReason: reason });
    return { ...errorReply(403, "FORBIDDEN", FORBIDDEN_MESSAGE), rejected: { reason, stored } };
  }
  const tokenTenantId = authority.form === "tenant" ? authority.tenantId : null;

  const { route } = callback;
  const json = parseJson(callback.rawBody);
  const read = nulCharacter.test(callback.rawBody)
    ? { ok: false as const, error: "the body holds a NUL character" }
    : json.ok
      ? route.read(json.value, { reference: callback.reference, paysIntent: callback.paysIntent })
      : { ok: false as const, error: "the body is not valid JSON" };
  if (!read.ok) {
    // Settles nothing, and it is known before it is stored.
    const over = await unsettledOverLimit(deps, tokenTenantId, callback.rawBody);
    const kept = over?.bodyCut ? { ...callback, rawBody: cutBody(callback.rawBody) } : callback;
    const flagReason = read.error.slice(0, 1000);
    const { id } = await store(deps, kept, { outcome: "malformed", flagReason, tokenTenantId });
    const reason = read.error.slice(0, 200);
    deps.logger.warn({ callbackId: id, kind: callback.kind, reason }, "momo callback malformed");
    return { ...errorReply(400, "MALFORMED_REQUEST", "The callback body is not a Daraja callback."), ...(over ? { overUnsettledLimit: over } : {}) };
  }

  const { accountReference, correlationId } = read;
  const fields = { outcome: "accepted" as const, correlationId, accountReference, tokenTenantId };
  const { id, receivedAt } = await store(deps, callback, fields, read.store);
  const stored: StoredCallback = { id, receivedAt, accountReference: accountReference ?? null, tokenTenantId };
  const handled: CallbackHandling = await read.handle(deps, stored, authority);
  if ("refused" in handled) {
    const reason = handled.refused;
    await callbacks.recordAnswer(deps.db.unscoped("daraja-callback"), id, { outcome: "rejected", flagReason: reason });
    const message = "momo callback refused: its token does not speak for what it names";
    deps.logger.warn({ callbackId: id, kind: callback.kind, reason }, message);
    return refusedReply();
  }
  if ("answered" in handled) {
    // Nothing was applied: the stored row records the answer (a rejection's code in flag_reason).
    const flagReason = handled.note ?? null;
    await callbacks.recordAnswer(deps.db.unscoped("daraja-callback"), id, { outcome: "applied", flagReason });
    return { status: 200, body: handled.answered };
  }
  const { applied: result, keptUnmatched } = handled;
  const over = settlesNothing(result, keptUnmatched) ? await keptUnsettled(deps, id, tokenTenantId, callback.rawBody) : undefined;
  const reply = result === "rejected" ? refusedReply() : { status: 200, body: route.answer ?? ACCEPTED_ANSWER };
  return over ? { ...reply, overUnsettledLimit: over } : reply;
}

/**
 * Whether a stored callback is one retention keeps whatever its age (it may be the only record of money,
 * docs/operations.md#retention) because it settled nothing: all but an applied or duplicate one (flagged,
 * held for a prompt in flight, refused for the row it names, accepted with nothing to apply yet), and a C2B
 * payment kept unmatched. A callback another path handled meanwhile (skipped) is that path's.
 */
function settlesNothing(result: StoredApplyResult, keptUnmatched: boolean | undefined): boolean {
  if (keptUnmatched === true) return true;
  return result !== "applied" && result !== "duplicate" && result !== "skipped";
}

/**
 * Counts a callback with a real token that settles nothing against its shop's
 * unmatched_callbacks_stored_per_tenant (the old form: one count of its own): such rows are never pruned,
 * so a leaked token must not write rows of any size for ever. Beyond the number it is still stored, applied
 * and answered as any other — only a body longer than 8 KiB is cut, which no Daraja callback is, so a real
 * money record (a C2B confirmation's amount, TransID, MSISDN and BillRefNumber) keeps every field.
 * Undefined while within the number.
 */
async function unsettledOverLimit(deps: PaymentPorts, tokenTenantId: string | null, rawBody: string): Promise<OverUnsettledLimit | undefined> {
  const { allowed } = await deps.limiter.consume("unmatched_callbacks_stored_per_tenant", tokenTenantId ?? "shared");
  return allowed ? undefined : { tenantId: tokenTenantId, bodyCut: rawBody.length > REJECTED_BODY_MAX_CHARS };
}

/** `unsettledOverLimit` for a callback already stored (`callbackId`): cuts its stored body when over. */
async function keptUnsettled(deps: PaymentPorts, callbackId: string, tokenTenantId: string | null, rawBody: string): Promise<OverUnsettledLimit | undefined> {
  const over = await unsettledOverLimit(deps, tokenTenantId, rawBody);
  if (over?.bodyCut) await callbacks.replaceBody(deps.db.unscoped("daraja-callback"), callbackId, storableText(cutBody(rawBody)));
  return over;
}
