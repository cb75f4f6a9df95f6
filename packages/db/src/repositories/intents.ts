/**
 * The payment_intents table (docs/payment-intents.md). Requests go through a tenant's client; a
 * payment's settlement moves its intent on raw SQL (`RawSql`, see payments.ts), naming the tenant.
 * Every status change is conditional on the statuses the caller's state machine allows, so a terminal
 * intent never changes, whatever raced it.
 */
import { Prisma } from "../generated/prisma/client.js";
import type { PaymentIntentModel } from "../generated/prisma/models.js";
import { intentsTable, paymentsWithRefundsOf, withRefundsColumns, withRefundsOrder } from "../model-rows.js";
import { tenantPlainFor, tenantPlainOf, type TenantPlain } from "../plain-access.js";
import { sqlWords, type RawSql } from "../raw-sql.js";
import type { TenantDb } from "../tenant-scope.js";
import { prismaOf, type AnyClient } from "./clients.js";
import { itsRefunds, type PaymentWithRefunds } from "./payments.js";
import { olderThan } from "./keyset.js";
import { eventWrites, type EventRow } from "./webhook-event-writes.js";

/** An intent with its payments, oldest first, each with its refunds. */
export type IntentWithPayments = PaymentIntentModel & { payments: PaymentWithRefunds[] };

/** Prisma's include of an intent's payments. */
const withPayments = {
  payments: { orderBy: [{ createdAt: "asc" as const }, { id: "asc" as const }], include: itsRefunds },
};

/** An intent named with its tenant, for raw SQL on a settlement's transaction (which no scope reaches). */
export interface IntentKey {
  intentId: string;
  tenantId: string;
}

export interface NewIntentRow {
  id: string;
  tenantId: string;
  amount: number;
  reference: string;
  description: string | null;
  userId: string | null;
  metadata: Record<string, string>;
  idempotencyKey: string | null;
  requestHash: string | null;
  status: string;
  expiresAt: Date;
  createdAt: Date;
}

const intentColumns = intentsTable.columnList;

/** Which intents are due to expire: in one of `from`, with an expires_at at or before `at`. */
export interface DueLook {
  from: readonly string[];
  at: Date;
}

/** Whether an intent of the client's scope is due (`DueLook`), its time the statement's parameter `at` (`$3`, …). */
function anyDueSql(plain: TenantPlain, from: readonly string[], at: string): string {
  return `EXISTS (SELECT 1 FROM payment_intents WHERE ${plain.scope} AND status IN (${sqlWords(from)}) AND expires_at <= ${at})`;
}

/*
 * The hot statements of a shop's checkout (an intent created, then paid) are plain SQL on the pool,
 * prepared by name: Prisma's model costs several times their CPU (docs/performance.md). Each says the
 * scope the tenant's client would add (`TenantPlain.scope`: its tenant, and its mode where it has one,
 * `$1` and `$2`), and names its statuses as literals (`sqlWords`), for plans that use the indexes.
 */

/** A new intent, and whether any intent of its tenant and mode was due to expire when it was stored. */
export interface CreatedIntent {
  intent: IntentWithPayments;
  anyDue: boolean;
}

/**
 * Stores a new intent (its updated_at its created_at) in the client's tenant and mode; the intent with its
 * payments, none yet, and `anyDue`'s look (`due`), answered by the same statement. An open intent with the
 * same reference (compared case-insensitively) in the mode makes it fail on the unique index
 * payment_intents_open_reference_per_mode.
 */
export async function create(db: TenantDb, row: NewIntentRow, due: DueLook): Promise<CreatedIntent> {
  const plain = tenantPlainFor(db, row);
  const rows = await plain.sql.query(
    `INSERT INTO payment_intents (id, tenant_id, livemode, amount, reference, description, user_id, metadata, status,
       idempotency_key, request_hash, expires_at, created_at, updated_at)
     VALUES ($3, $1, $4, $5, $6, $7, $8, $9::jsonb, $10, $11, $12, $13, $14, $14)
     RETURNING ${intentColumns}, ${anyDueSql(plain, due.from, "$15")} AS "anyDue"`,
    [
      ...plain.scopeValues, row.id, plain.livemode ?? true, row.amount, row.reference, row.description, row.userId,
      JSON.stringify(row.metadata), row.status, row.idempotencyKey, row.requestHash, row.expiresAt, row.createdAt, due.at,
    ],
  );
  const { anyDue, ...stored } = rows[0]!;
  return { intent: { ...intentsTable.fromRow(stored), payments: [] }, anyDue: anyDue === true };
}

export function find(db: TenantDb, id: string): Promise<IntentWithPayments | null> {
  return db.paymentIntent.findFirst({ where: { id }, include: withPayments });
}

/**
 * The intent's own row (what paying it needs), and whether any intent of the client's tenant and mode is
 * due to expire (`anyDue`'s look, in the same statement: a prompt needs both). anyDue is false when there
 * is no such intent.
 */
export async function findRowAndAnyDue(
  db: TenantDb,
  id: string,
  { from, at }: DueLook,
): Promise<{ intent: PaymentIntentModel | null; anyDue: boolean }> {
  const plain = tenantPlainOf(db);
  const rows = await plain.sql.query(
    `SELECT ${intentColumns}, ${anyDueSql(plain, from, "$4")} AS "anyDue" FROM payment_intents WHERE ${plain.scope} AND id = $3`,
    [...plain.scopeValues, id, at],
  );
  if (!rows[0]) return { intent: null, anyDue: false };
  const { anyDue, ...row } = rows[0];
  return { intent: intentsTable.fromRow(row), anyDue: anyDue === true };
}

export function findByIdempotencyKey(db: TenantDb, idempotencyKey: string): Promise<IntentWithPayments | null> {
  return db.paymentIntent.findFirst({ where: { idempotencyKey }, include: withPayments });
}

/**
 * One page, newest first, after the intent `afterId` (the cursor); undefined when the cursor is not an
 * intent of this tenant.
 */
export async function listPage(
  db: TenantDb,
  page: { status?: string | undefined; take: number; afterId?: string | undefined },
): Promise<IntentWithPayments[] | undefined> {
  let after = {};
  if (page.afterId) {
    const last = await db.paymentIntent.findFirst({
      where: { id: page.afterId },
      select: { id: true, createdAt: true },
    });
    if (!last) return undefined;
    after = olderThan(last);
  }
  return db.paymentIntent.findMany({
    where: { ...after, ...(page.status ? { status: page.status } : {}) },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: page.take,
    include: withPayments,
  });
}

/** A status change: applied only to an intent in one of `from`. */
export interface IntentMove {
  from: readonly string[];
  to: string;
  at: Date;
}

/** Moves the intent as `move` says; false when it was not in a status that allows it (or there is no such intent). */
export async function transition(client: AnyClient, id: string, move: IntentMove): Promise<boolean> {
  const { count } = await prismaOf(client).paymentIntent.updateMany({
    where: { id, status: { in: [...move.from] } },
    data: { status: move.to, updatedAt: move.at },
  });
  return count === 1;
}

/** Whether an intent of the client's tenant (and mode) in one of `from` has an expires_at at or before `at` (what `expireDue` would move). */
export async function anyDue(db: TenantDb, { from, at }: DueLook): Promise<boolean> {
  const plain = tenantPlainOf(db);
  const rows = await plain.sql.query(`SELECT ${anyDueSql(plain, from, "$3")} AS "anyDue"`, [...plain.scopeValues, at]);
  return rows[0]?.anyDue === true;
}

/**
 * Moves every intent in one of `from` whose expires_at is at or before `at` to `to`; the intents it
 * moved, with their payments. Through a tenant's client, that tenant's; through the unscoped one, all.
 */
export async function expireDue(
  client: AnyClient,
  { from, to, at }: { from: readonly string[]; to: string; at: Date },
): Promise<IntentWithPayments[]> {
  const intents = prismaOf(client).paymentIntent;
  const expired = await intents.updateManyAndReturn({
    where: { status: { in: [...from] }, expiresAt: { lte: at } },
    data: { status: to, updatedAt: at },
    select: { id: true },
  });
  if (expired.length === 0) return [];
  return intents.findMany({ where: { id: { in: expired.map((row) => row.id) } }, include: withPayments });
}

// ---- a payment's settlement (raw SQL) ---------------------------------------------------------------

/** The intent as a settlement locked it: its status, and the C2B payment held as its duplicate, if asked. */
export interface LockedIntent {
  status: string;
  heldPaymentId: string | null;
}

/**
 * The intent's earliest successful C2B payment held as a duplicate and not being given back (no
 * refund that is not FAILED): a sub-select of the intent's lock statement, so looking for it costs no
 * statement of its own.
 */
const heldPaymentOf = Prisma.sql`(
  SELECT p.id::text FROM payments p
   WHERE p.intent_id = payment_intents.id AND p.tenant_id = payment_intents.tenant_id
     AND p.channel = 'c2b' AND p.status = 'SUCCESS' AND p.duplicate
     AND NOT EXISTS (SELECT 1 FROM refunds r WHERE r.payment_id = p.id AND r.status <> 'FAILED')
   ORDER BY p.created_at, p.id LIMIT 1)`;

/**
 * Locks the intent (FOR UPDATE) and reads its status, and its held C2B payment when `withHeldPayment`;
 * undefined when there is no such intent.
 */
export async function lockForSettlement(
  tx: RawSql,
  { intentId, tenantId }: IntentKey,
  { withHeldPayment }: { withHeldPayment: boolean },
): Promise<LockedIntent | undefined> {
  const rows = await tx.$queryRaw<{ status: string; held_payment_id: string | null }[]>`
    SELECT status, ${withHeldPayment ? heldPaymentOf : Prisma.sql`NULL`} AS held_payment_id
      FROM payment_intents WHERE id = ${intentId} AND tenant_id = ${tenantId} FOR UPDATE`;
  const row = rows[0];
  return row ? { status: row.status, heldPaymentId: row.held_payment_id ?? null } : undefined;
}

/**
 * Moves the intent to `to` if it is in one of `from` (the update takes the row's lock, if the caller did
 * not hold it already); the intent as moved, or undefined when it did not move.
 */
export async function moveStatus(
  tx: RawSql,
  { intentId, tenantId }: IntentKey,
  { from, to, at }: IntentMove,
): Promise<PaymentIntentModel | undefined> {
  const rows = await tx.$queryRaw<Record<string, unknown>[]>`
      UPDATE payment_intents SET status = ${to}, updated_at = ${at}
       WHERE id = ${intentId} AND tenant_id = ${tenantId} AND status IN (${Prisma.join(from)})
      RETURNING ${intentsTable.columns}`;
  return rows[0] && intentsTable.fromRow(rows[0]);
}

/**
 * Writes the event of an intent whose body was built with `paymentId` as its only payment, only if the
 * intent has no other payment; whether it did. The look is a statement of its own after the payment's
 * settlement, so it sees any payment committed while the settlement waited for the intent's lock; when
 * it finds one, the caller reads the intent whole (findInStatus) and writes the event from that.
 */
export async function recordEventIfOnlyPayment(tx: RawSql, { intentId, tenantId }: IntentKey, paymentId: string, event: EventRow): Promise<boolean> {
  const alone = Prisma.sql`NOT EXISTS (SELECT 1 FROM payments
                                        WHERE intent_id = ${intentId} AND tenant_id = ${tenantId} AND id <> ${paymentId}::uuid)`;
  const rows = await tx.$queryRaw<{ written: number }[]>`WITH ${eventWrites(event, { onlyIf: alone })} SELECT count(*)::int AS written FROM event`;
  return rows[0]?.written === 1;
}

/** The intent with its payments (each with its refunds) if it is in `status`; undefined otherwise. One statement. */
export async function findInStatus(
  tx: RawSql,
  key: IntentKey,
  status: string,
): Promise<IntentWithPayments | undefined> {
  const rows = await tx.$queryRaw<Record<string, unknown>[]>`
    SELECT ${Prisma.raw(intentsTable.prefixedColumns("i", "i."))}, ${withRefundsColumns}
      FROM payment_intents i
      LEFT JOIN payments p ON p.intent_id = i.id AND p.tenant_id = i.tenant_id
      LEFT JOIN refunds r ON r.payment_id = p.id
     WHERE i.id = ${key.intentId} AND i.tenant_id = ${key.tenantId} AND i.status = ${status}
     ORDER BY ${withRefundsOrder}`;
  const intent = rows[0] && intentsTable.fromPrefixed(rows[0], "i.");
  return intent && { ...intent, payments: paymentsWithRefundsOf(rows) };
}

/** The intent a C2B account names, as its rules read it. */
export interface NamedIntent {
  id: string;
  status: string;
  amount: number;
  expiresAt: Date;
}

/**
 * The tenant's intent of this mode with this reference (case-insensitively): one in `openStatuses` first
 * (at most one, a partial unique index), else the latest. Locked (FOR UPDATE) when `lock`.
 */
export async function findNamedBy(
  sql: Pick<RawSql, "$queryRaw">,
  named: { tenantId: string; livemode: boolean; reference: string; openStatuses: readonly string[]; lock: boolean },
): Promise<NamedIntent | undefined> {
  const { tenantId, livemode, reference, openStatuses } = named;
  const locked = named.lock ? Prisma.sql` FOR UPDATE` : Prisma.empty;
  const rows = await sql.$queryRaw<{ id: string; status: string; amount: number; expires_at: Date }[]>`
    SELECT id, status, amount, expires_at FROM payment_intents
     WHERE tenant_id = ${tenantId} AND livemode = ${livemode} AND lower(reference) = lower(${reference})
     ORDER BY (status IN (${Prisma.join(openStatuses)})) DESC, created_at DESC LIMIT 1${locked}`;
  const row = rows[0];
  return row
    ? { id: row.id, status: row.status, amount: Number(row.amount), expiresAt: new Date(row.expires_at) }
    : undefined;
}

/** Every intent bound to `from` bound to `to` instead (a guest's, when it signs in to an account); answers how many. */
export async function rebindAll(tx: AnyClient, move: { from: string; to: string }): Promise<number> {
  const moved = await prismaOf(tx).paymentIntent.updateMany({ where: { userId: move.from }, data: { userId: move.to } });
  return moved.count;
}
