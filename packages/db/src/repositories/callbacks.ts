/**
 * The momo_callbacks table: every Daraja callback, stored verbatim before anything else
 * (docs/mpesa.md#callbacks), then the outcome applying it came to. Daraja callbacks belong to no tenant:
 * callers use the unscoped client or a plain transaction. What an outcome means, and when a callback is
 * held, flagged or applied, is the payments area's rule; these functions only write what they are told.
 */
import { Prisma } from "../generated/prisma/client.js";
import type { DarajaCallbackModel } from "../generated/prisma/models.js";
import type { UnscopedDb } from "../doors.js";
import { paymentsTable, payoutsTable, refundsTable } from "../model-rows.js";
import { plainOf } from "../plain-access.js";
import type { RawSql } from "../raw-sql.js";
import { prismaOf, type AnyClient } from "./clients.js";

export interface StoredCallbackInsert {
  kind: string;
  rawBody: string;
  sourceIp: string | null;
  receivedAt: Date;
  /** accepted | malformed | rejected: what receiving it decided (applying records the rest). */
  outcome: string;
  correlationId: string | null;
  flagReason: string | null;
  accountReference: string | null;
  /** The tenant whose token the callback's URL carried; null: the shared secret (docs/mpesa.md#callback-tokens). */
  tokenTenantId: string | null;
}

/**
 * Stores the callback; its id. One INSERT on the shared pool, committed on its own: every callback pays
 * for it, and Prisma's model query costs several times the CPU of the statement.
 */
export async function store(db: UnscopedDb, row: StoredCallbackInsert): Promise<string> {
  const rows = await plainOf(db).autocommit.$queryRaw<{ id: string }[]>(storeStatement(row));
  return rows[0]!.id;
}

/**
 * The INSERT that stores a callback, returning its `id`: alone (store), or as the first part of a statement
 * that also reads what applying it needs first (payments.storeCallbackReadingPayment), saving a round trip.
 */
export function storeStatement(row: StoredCallbackInsert): Prisma.Sql {
  return Prisma.sql`
    INSERT INTO momo_callbacks (id, kind, raw_body, source_ip, received_at, outcome, correlation_id, flag_reason,
                                account_reference, token_tenant_id)
    VALUES (gen_random_uuid(), ${row.kind}, ${row.rawBody}, ${row.sourceIp}, ${row.receivedAt}, ${row.outcome},
            ${row.correlationId}, ${row.flagReason}, ${row.accountReference}, ${row.tokenTenantId})
    RETURNING id::text AS id`;
}

/**
 * Which of `correlationIds` a stored row of `kind` with the tenant `tokenTenantId` already has with one
 * of `outcomes` (what Pull's sweep need not store again: a pulled receipt already flagged).
 */
export async function storedWithOutcome(
  sql: RawSql,
  which: { kind: string; tokenTenantId: string; correlationIds: readonly string[]; outcomes: readonly string[] },
): Promise<Set<string>> {
  if (which.correlationIds.length === 0) return new Set();
  const rows = await sql.$queryRaw<{ correlation_id: string }[]>`
    SELECT DISTINCT correlation_id FROM momo_callbacks
     WHERE correlation_id = ANY(${[...which.correlationIds]}::text[]) AND kind = ${which.kind}
       AND token_tenant_id = ${which.tokenTenantId} AND outcome = ANY(${[...which.outcomes]}::text[])`;
  return new Set(rows.map((row) => row.correlation_id));
}

/** Records what receiving decided after all (a C2B validation's answer, or its refusal). */
export async function recordAnswer(
  client: AnyClient,
  id: string,
  answer: { outcome: string; flagReason: string | null },
): Promise<void> {
  await prismaOf(client).darajaCallback.update({
    where: { id },
    data: { outcome: answer.outcome, flagReason: answer.flagReason },
  });
}

/** Replaces the stored body (a shorter copy of it). */
export async function replaceBody(client: AnyClient, id: string, rawBody: string): Promise<void> {
  await prismaOf(client).darajaCallback.updateMany({ where: { id }, data: { rawBody } });
}

/** A callback stored `accepted` and linked to no payment yet: what applying it again needs. */
export type HeldCallback = Pick<
  DarajaCallbackModel,
  "id" | "rawBody" | "receivedAt" | "accountReference" | "tokenTenantId" | "correlationId"
>;

/**
 * The callbacks of `kind` still `accepted` and linked to no payment, oldest first, at most `limit`;
 * only those with this correlation id, or received since `receivedSince`, when given. Plain SQL: every
 * accepted prompt asks, by its CheckoutRequestID.
 */
export async function listHeld(
  db: UnscopedDb,
  held: { kind: string; correlationId?: string | undefined; receivedSince?: Date | undefined; limit: number },
): Promise<HeldCallback[]> {
  // A text of its own for each kind of look: a prepared statement's generic plan would not use the
  // correlation id's index behind an `IS NULL OR`.
  const [narrowed, value] =
    held.correlationId !== undefined ? ["AND correlation_id = $3", held.correlationId] : held.receivedSince !== undefined ? ["AND received_at >= $3", held.receivedSince] : ["", undefined];
  const rows = await plainOf(db).sql.query(
    `SELECT id::text AS "id", raw_body AS "rawBody", received_at AS "receivedAt", account_reference AS "accountReference",
            token_tenant_id AS "tokenTenantId", correlation_id AS "correlationId"
       FROM momo_callbacks
      WHERE kind = $1 AND outcome = 'accepted' AND payment_id IS NULL ${narrowed}
      ORDER BY received_at LIMIT $2::int`,
    [held.kind, held.limit, ...(value !== undefined ? [value] : [])],
  );
  return rows.map((row) => ({ ...row, receivedAt: new Date(row.receivedAt as string | Date) }) as HeldCallback);
}

/** Flags a callback that is still `accepted` and linked to no payment; whether it did. */
export async function flagIfHeld(client: AnyClient, id: string, flagReason: string): Promise<boolean> {
  const flagged = await prismaOf(client).darajaCallback.updateMany({
    where: { id, outcome: "accepted", paymentId: null },
    data: { outcome: "flagged", flagReason },
  });
  return flagged.count === 1;
}

/** What applying a callback came to, for its stored row: the outcome, why it was flagged, what it settled. */
export interface OutcomeToRecord {
  outcome: string;
  flagReason?: string | null | undefined;
  link: { paymentId?: string | undefined; payoutId?: string | undefined };
}

/** The tables a callback settles rows of. */
export type SettledTable = "payments" | "payouts" | "refunds";

/** A payment (payout, refund) as an apply without locks read it, without its lock. */
export interface RowAsRead {
  table: SettledTable;
  id: string;
  status: string;
  updatedAt: Date;
}

/**
 * An outcome to record on the stored row only while it is still unhandled (`accepted`, linked to
 * nothing) and, given `asRead`, only while that row is still as read. The stored row's lock is taken
 * by the statement that records it, after the payment's: the lock order of every path.
 */
export interface UnlessHandled {
  callbackId: string;
  outcome: OutcomeToRecord;
  asRead?: RowAsRead | undefined;
}

/** A stored callback as its outcome was recorded: what callback.flagged reports. */
export type RecordedCallback = Pick<
  DarajaCallbackModel,
  "id" | "kind" | "receivedAt" | "flagReason" | "paymentId" | "payoutId"
>;

interface RecordedRow {
  id: string;
  kind: string;
  received_at: Date;
  flag_reason: string | null;
  payment_id: string | null;
  payout_id: string | null;
}

const settledTables = { payments: paymentsTable, payouts: payoutsTable, refunds: refundsTable } as const;

/**
 * True while the row is still as read, locking it (FOR UPDATE): before the stored row's lock, the lock
 * order of every path.
 */
function stillAsRead(row: RowAsRead): Prisma.Sql {
  const table = settledTables[row.table];
  return Prisma.sql`EXISTS (
         SELECT 1 FROM ${table.table}
          WHERE id = ${row.id}::${Prisma.raw(table.idType)} AND status = ${row.status} AND updated_at = ${row.updatedAt}
            FOR UPDATE)`;
}

/**
 * The statement that records an outcome on the stored row unless it was handled (taking its row lock),
 * returning the stored row: alone (recordOutcome) or as the precondition of a settlement's update
 * (payments.settle and its kin), which then writes only if it returned a row.
 */
export function outcomeStatement({ callbackId, outcome, asRead }: UnlessHandled): Prisma.Sql {
  const unchanged = asRead ? Prisma.sql` AND ${stillAsRead(asRead)}` : Prisma.empty;
  return Prisma.sql`
    UPDATE momo_callbacks
       SET outcome = ${outcome.outcome}, flag_reason = ${outcome.flagReason ?? null},
           payment_id = ${outcome.link.paymentId ?? null}::uuid, payout_id = ${outcome.link.payoutId ?? null}::uuid
     WHERE id = ${callbackId}::uuid AND outcome = 'accepted' AND payment_id IS NULL AND payout_id IS NULL${unchanged}
    RETURNING id::text AS id, kind, received_at, flag_reason,
              payment_id::text AS payment_id, payout_id::text AS payout_id`;
}

/**
 * Records the outcome unless the stored row was handled (or the row read changed); the recorded row, or
 * undefined when not.
 */
export async function recordOutcome(tx: RawSql, record: UnlessHandled): Promise<RecordedCallback | undefined> {
  const rows = await tx.$queryRaw<RecordedRow[]>(outcomeStatement(record));
  const row = rows[0];
  if (!row) return undefined;
  return {
    id: row.id,
    kind: row.kind,
    receivedAt: new Date(row.received_at),
    flagReason: row.flag_reason,
    paymentId: row.payment_id,
    payoutId: row.payout_id,
  };
}
