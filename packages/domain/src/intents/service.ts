/**
 * The payment intent operations of a shop's server (docs/payment-intents.md): create (idempotent
 * with Idempotency-Key), read, list and cancel. Due intents are expired before each of them
 * (transition on read), so an intent past expires_at never reads as payable; the reconciler's sweep
 * expires the rest.
 */
import { intents, isUniqueViolation, users } from "@mteja/db";
import { sha256 } from "../shared/secrets.js";
import { DomainError } from "../shared/errors.js";
import { checkTenantAmount, idempotencyKeyOf, keyReusedError } from "../payments/shared/request-rules.js";
import type { TenantCtx } from "./ports.js";
import { dueIntents, expireDueIntents, expireFoundIntents } from "./intent-expiry.js";
import { statusesAllowing } from "./intent-transitions.js";
import { EXPIRES_IN_DEFAULT_SECONDS, type CreateIntentInput, type IntentView, type ListIntentsInput } from "./schemas.js";
import { toIntentView } from "./views.js";

const INTENT_ID_BYTES = 18;

export const intentNotFound = () => new DomainError("NOT_FOUND", "not_found.intent");

function referenceInUse(reference: string): DomainError {
  return new DomainError("REFERENCE_IN_USE", undefined, {
    details: [{ path: "reference", message: { key: "detail.reference_in_use", params: { reference } } }],
  });
}

export async function createIntent(ctx: TenantCtx, input: CreateIntentInput): Promise<IntentView> {
  const { deps, db } = ctx;
  const now = deps.clock.now();
  const idempotencyKey = idempotencyKeyOf(ctx) ?? null;
  const requestHash = sha256(JSON.stringify(canonicalRequest(input)));
  if (idempotencyKey) {
    const earlier = await intents.findByIdempotencyKey(db, idempotencyKey);
    if (earlier) return replayed(earlier, requestHash);
  }
  checkTenantAmount(ctx.tenant, input.amount);
  if (input.user_id !== undefined && !(await users.exists(db, input.user_id))) {
    throw new DomainError("VALIDATION_ERROR", undefined, { details: [{ path: "user_id", message: "detail.user_not_customer" }] });
  }
  const expiresInSeconds = input.expires_in_seconds ?? EXPIRES_IN_DEFAULT_SECONDS;
  const row = {
    id: `pi_${deps.random.bytes(INTENT_ID_BYTES).toString("base64url")}`,
    tenantId: ctx.tenant.id,
    amount: input.amount,
    reference: input.reference,
    description: input.description ?? null,
    userId: input.user_id ?? null,
    metadata: input.metadata ?? {},
    idempotencyKey,
    requestHash: idempotencyKey ? requestHash : null,
    status: "requires_payment",
    expiresAt: new Date(now.getTime() + expiresInSeconds * 1000),
    createdAt: now,
  };
  try {
    const created = await intents.create(db, row, dueIntents(now));
    // Due intents are expired as before any other intent operation; the insert found them in its statement.
    if (created.anyDue) await expireFoundIntents(deps.db, db, now);
    return toIntentView(created.intent);
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    // The same Idempotency-Key (replay it), or the same reference as an open intent: unless that intent
    // is past its expires_at (it is expired now, and its reference free), the reference is in use.
    const earlier = idempotencyKey ? await intents.findByIdempotencyKey(db, idempotencyKey) : null;
    if (earlier) return replayed(earlier, requestHash);
    if ((await expireDueIntents(deps.db, db, now)) === 0) throw referenceInUse(input.reference);
    const created = await intents.create(db, row, dueIntents(now)).catch((again: unknown) => {
      throw isUniqueViolation(again) ? referenceInUse(input.reference) : again;
    });
    return toIntentView(created.intent);
  }
}

/** The fields that make two create requests the same request (defaults filled in). */
function canonicalRequest(input: CreateIntentInput) {
  const metadata = Object.fromEntries(Object.entries(input.metadata ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return [input.amount, input.reference, input.description ?? null, input.user_id ?? null, metadata, input.expires_in_seconds ?? EXPIRES_IN_DEFAULT_SECONDS];
}

function replayed(earlier: intents.IntentWithPayments, requestHash: string): IntentView {
  if (earlier.requestHash !== requestHash) throw keyReusedError();
  return toIntentView(earlier);
}

export async function getIntent(ctx: TenantCtx, id: string): Promise<IntentView> {
  await expireDueIntents(ctx.deps.db, ctx.db, ctx.deps.clock.now());
  const row = await intents.find(ctx.db, id);
  if (!row) throw intentNotFound();
  return toIntentView(row);
}

export async function listIntents(ctx: TenantCtx, input: ListIntentsInput): Promise<{ payment_intents: IntentView[]; next_cursor: string | null }> {
  await expireDueIntents(ctx.deps.db, ctx.db, ctx.deps.clock.now());
  const rows = await intents.listPage(ctx.db, { status: input.status, take: input.limit + 1, afterId: input.cursor });
  if (!rows) throw new DomainError("VALIDATION_ERROR", undefined, { details: [{ path: "cursor", message: "detail.cursor" }] });
  const shown = rows.slice(0, input.limit);
  const last = shown[shown.length - 1];
  return { payment_intents: shown.map(toIntentView), next_cursor: rows.length > input.limit && last ? last.id : null };
}

/**
 * Cancels an intent that requires payment. One already cancelled or expired is answered as it is
 * (a retried cancel succeeds); one that is processing or succeeded is 409 INTENT_NOT_CANCELLABLE.
 */
export async function cancelIntent(ctx: TenantCtx, id: string): Promise<IntentView> {
  const now = ctx.deps.clock.now();
  await expireDueIntents(ctx.deps.db, ctx.db, now);
  await intents.transition(ctx.db, id, { from: statusesAllowing("cancel"), to: "cancelled", at: now });
  const row = await intents.find(ctx.db, id);
  if (!row) throw intentNotFound();
  if (row.status === "processing" || row.status === "succeeded") {
    throw new DomainError("INTENT_NOT_CANCELLABLE", { key: "intents.not_cancellable", params: { status: row.status } });
  }
  return toIntentView(row);
}
