/**
 * The payments table (STK prompts and C2B payments). Reads through a tenant's client are scoped to
 * it; the statements of a settlement take raw SQL (`RawSql`), offered alike by the plain transaction
 * callbacks run in, by autocommit statements (`Database.transaction(door, "autocommit", …)`) and by Prisma's transactions, and name their rows by id
 * (or by Daraja's ids, which name no tenant). What a status means and which may move to which is the
 * payments area's rule: the conditions here come from the caller, or are the fact a name states.
 */
import { Prisma } from "../generated/prisma/client.js";
import type { PaymentModel, RefundModel } from "../generated/prisma/models.js";
import { insertRow, paymentsTable, paymentsWithRefundsOf, updateRow, withRefundsColumns, withRefundsOrder, type RowChanges } from "../model-rows.js";
import type { UnscopedDb } from "../doors.js";
import { plainOf, tenantPlainFor, tenantPlainOf } from "../plain-access.js";
import { sqlWords, type RawSql } from "../raw-sql.js";
import type { TenantDb } from "../tenant-scope.js";
import { prismaOf, type AnyClient } from "./clients.js";
import * as callbacks from "./callbacks.js";
import { settleRow, type SettleWrites } from "./settle-row.js";

/** A payment named with its tenant, for raw SQL on a tenant's transaction (which the scope does not reach). */
export interface PaymentKey {
  id: string;
  tenantId: string;
}

/** A payment as read, with its refunds (newest first) when the read asked for them (otherwise none are shown). */
export type PaymentWithRefunds = PaymentModel & { refunds?: RefundModel[] };

/** Prisma's include of a payment's refunds, newest first (a payment has few). */
export const itsRefunds = {
  refunds: { orderBy: [{ createdAt: "desc" as const }, { id: "desc" as const }] },
};

/** How many payments of every tenant are in each status (/metrics). */
export async function countByStatus(db: UnscopedDb): Promise<{ status: string; count: number }[]> {
  const rows = await plainOf(db).sql.query("SELECT status, count(*)::int AS n FROM payments GROUP BY status");
  return rows.map((row) => ({ status: String(row.status), count: Number(row.n) }));
}

// ---- a callback's settlement (raw SQL) --------------------------------------------------------------

/** A payment a callback names, and whether the receipt the callback brings is already another payment's. */
export interface PaymentForCallback {
  payment: PaymentModel;
  receiptElsewhere: boolean;
}

/**
 * Locks the payment with this CheckoutRequestID (FOR UPDATE) and reads it, in one statement that also
 * looks for `receipt` on every other payment (the unique index spans tenants, so does the look);
 * undefined if there is no such payment.
 */
export function lockByCheckoutId(
  tx: RawSql,
  checkoutRequestId: string,
  receipt?: string,
): Promise<PaymentForCallback | undefined> {
  return byCheckoutId(tx, checkoutRequestId, receipt, Prisma.sql`FOR UPDATE`);
}

/**
 * lockByCheckoutId without the lock: for a callback's apply without locks, whose write checks the row is
 * still as read.
 */
export function readByCheckoutId(
  sql: RawSql,
  checkoutRequestId: string,
  receipt?: string,
): Promise<PaymentForCallback | undefined> {
  return byCheckoutId(sql, checkoutRequestId, receipt, Prisma.empty);
}

async function byCheckoutId(
  tx: RawSql,
  checkoutRequestId: string,
  receipt: string | undefined,
  lock: Prisma.Sql,
): Promise<PaymentForCallback | undefined> {
  const rows = await tx.$queryRaw<Record<string, unknown>[]>`${byCheckoutIdStatement(checkoutRequestId, receipt)} ${lock}`;
  return rows[0] && paymentForCallbackOf(rows[0]);
}

function byCheckoutIdStatement(checkoutRequestId: string, receipt: string | undefined): Prisma.Sql {
  return Prisma.sql`
    SELECT ${paymentsTable.columns},
           EXISTS (SELECT 1 FROM payments other
                    WHERE other.mpesa_receipt = ${receipt ?? null} AND other.id <> payments.id) AS "receiptElsewhere"
      FROM payments WHERE checkout_request_id = ${checkoutRequestId}`;
}

function paymentForCallbackOf({ receiptElsewhere, ...row }: Record<string, unknown>): PaymentForCallback {
  return { payment: paymentsTable.fromRow(row), receiptElsewhere: receiptElsewhere === true };
}

/**
 * Stores an STK callback (callbacks.storeStatement) and reads the payment its CheckoutRequestID names, as
 * readByCheckoutId does, in one statement: one round trip fewer for every callback. The read sees the
 * database as the store found it, which is what a read right after the store would see; the callback is
 * stored (committed) whatever the read finds. `payment` undefined: there is no such payment.
 */
export async function storeCallbackReadingPayment(
  sql: RawSql,
  row: callbacks.StoredCallbackInsert,
  checkoutRequestId: string,
  receipt?: string,
): Promise<{ id: string; payment: PaymentForCallback | undefined }> {
  const rows = await sql.$queryRaw<Record<string, unknown>[]>(Prisma.sql`
    WITH stored AS (${callbacks.storeStatement(row)})
    SELECT stored.id AS "storedId", named.*
      FROM stored LEFT JOIN LATERAL (${byCheckoutIdStatement(checkoutRequestId, receipt)}) named ON true`);
  const { storedId, ...named } = rows[0]!;
  return { id: storedId as string, payment: named.id === null || named.id === undefined ? undefined : paymentForCallbackOf(named) };
}

/** Locks (FOR UPDATE) and reads the tenant's payment with this id. */
export async function lockOfTenant(tx: RawSql, { id, tenantId }: PaymentKey): Promise<PaymentModel | undefined> {
  const rows = await tx.$queryRaw<
    Record<string, unknown>[]
  >`SELECT ${paymentsTable.columns} FROM payments WHERE id = ${id}::uuid AND tenant_id = ${tenantId} FOR UPDATE`;
  return rows[0] ? paymentsTable.fromRow(rows[0]) : undefined;
}

/** Whether another payment than `paymentId` has this receipt; the look spans every tenant, as the unique index does. */
export async function receiptRecordedElsewhere(tx: RawSql, receipt: string, paymentId: string): Promise<boolean> {
  const other = await tx.$queryRaw<
    unknown[]
  >`SELECT 1 FROM payments WHERE mpesa_receipt = ${receipt} AND id <> ${paymentId}::uuid`;
  return other.length > 0;
}

/**
 * Writes a settlement's changes to the payment, held locked as read (see SettleWrites: the event and the
 * callback's outcome in the same statement); the payment as it now is, or undefined when the outcome
 * found its callback handled and nothing was written.
 */
export function settle(
  tx: RawSql,
  payment: PaymentModel,
  changes: RowChanges<PaymentModel>,
  writes: SettleWrites = {},
): Promise<PaymentModel | undefined> {
  return settleRow(tx, paymentsTable, payment, changes, writes);
}

/** The tenant a payment belongs to and its mode (docs/test-mode.md); undefined when there is no such payment. */
export async function ownerOf(tx: RawSql, id: string): Promise<{ tenantId: string; livemode: boolean } | undefined> {
  const rows = await tx.$queryRaw<{ tenant_id: string; livemode: boolean }[]>`
    SELECT tenant_id, livemode FROM payments WHERE id = ${id}::uuid`;
  const row = rows[0];
  return row ? { tenantId: row.tenant_id, livemode: row.livemode } : undefined;
}

/** The payment with its refunds (for the event a settlement writes); undefined when there is none. */
export async function withRefunds(tx: RawSql, id: string): Promise<PaymentWithRefunds | undefined> {
  const [payment] = await listWithRefunds(tx, Prisma.sql`p.id = ${id}::uuid`);
  return payment;
}

/** What `include: itsRefunds` reads through Prisma, in one statement of raw SQL (`condition` on `p`, the payments). */
async function listWithRefunds(tx: RawSql, condition: Prisma.Sql): Promise<PaymentWithRefunds[]> {
  const rows = await tx.$queryRaw<Record<string, unknown>[]>`
    SELECT ${withRefundsColumns} FROM payments p LEFT JOIN refunds r ON r.payment_id = p.id
     WHERE ${condition} ORDER BY ${withRefundsOrder}`;
  return paymentsWithRefundsOf(rows);
}

// ---- prompts without Daraja's ids (docs/mpesa.md "Unknown outcomes") ----------------------------------

/**
 * Whether a push is still waiting for Daraja's answer: PENDING without a CheckoutRequestID or a
 * last_error (which an unknown outcome has), created since `createdSince`.
 */
export async function anyPromptInFlight(tx: RawSql, createdSince: Date): Promise<boolean> {
  const rows = await tx.$queryRaw<{ in_flight: boolean }[]>`
    SELECT EXISTS (SELECT 1 FROM payments
                    WHERE status = 'PENDING' AND checkout_request_id IS NULL AND last_error IS NULL
                      AND created_at >= ${createdSince}) AS in_flight`;
  return rows[0]?.in_flight === true;
}

/** Which prompts a callback's token speaks for: its tenant's, or those sent with the shared secret. */
export type PromptSender = { form: "tenant"; tenantId: string } | { form: "shared" };

/** What a callback for an unknown CheckoutRequestID is matched on. */
export interface PromptMatch {
  phone: string;
  amount: number;
  reference: string;
  /** Created within [createdFrom, createdUntil]. */
  createdFrom: Date;
  createdUntil: Date;
  /** A push without an answer (no last_error) created at or after this is still in flight: not a candidate. */
  inFlightSince: Date;
  sentBy: PromptSender;
}

function sentBy(sender: PromptSender): Prisma.Sql {
  return sender.form === "tenant"
    ? Prisma.sql`tenant_id = ${sender.tenantId}`
    : Prisma.sql`callback_token_form = 'shared'`;
}

/** Locks the PENDING payments without a CheckoutRequestID that `match` describes, oldest first. */
export async function lockPromptsMatching(tx: RawSql, match: PromptMatch): Promise<PaymentModel[]> {
  const rows = await tx.$queryRaw<Record<string, unknown>[]>`
    SELECT ${paymentsTable.columns} FROM payments
     WHERE status = 'PENDING' AND checkout_request_id IS NULL
       AND phone = ${match.phone} AND amount = ${match.amount}::int AND reference = ${match.reference}
       AND created_at >= ${match.createdFrom} AND created_at <= ${match.createdUntil}
       AND (last_error IS NOT NULL OR created_at < ${match.inFlightSince})
       AND ${sentBy(match.sentBy)}
     ORDER BY created_at
       FOR UPDATE`;
  return rows.map((row) => paymentsTable.fromRow(row));
}

/** Gives the locked payment Daraja's ids; the payment as it now is. */
export function storeDarajaIds(
  tx: RawSql,
  id: string,
  ids: { checkoutRequestId: string; merchantRequestId: string; updatedAt: Date },
): Promise<PaymentModel> {
  return updateRow(tx, paymentsTable, id, ids);
}

/**
 * Payments still `status` without a CheckoutRequestID, oldest first: those whose push had an unknown
 * outcome (a last_error) created before `unknownBefore`, and those never answered created before
 * `unansweredBefore`.
 */
export function listWithoutDarajaIds(
  client: AnyClient,
  due: { status: string; unknownBefore: Date; unansweredBefore: Date; limit: number },
): Promise<PaymentKey[]> {
  return prismaOf(client).payment.findMany({
    where: {
      status: due.status,
      checkoutRequestId: null,
      OR: [
        { lastError: { not: null }, createdAt: { lt: due.unknownBefore } },
        { lastError: null, createdAt: { lt: due.unansweredBefore } },
      ],
    },
    orderBy: { createdAt: "asc" },
    take: due.limit,
    select: { id: true, tenantId: true },
  });
}

// ---- C2B and intents ------------------------------------------------------------------------------

/** Who has already recorded a receipt: this tenant (its payment), another tenant (nothing of it is read), or nobody. */
export interface ReceiptHolders {
  own: PaymentModel | undefined;
  recordedElsewhere: boolean;
}

/**
 * The tenant's payment with this M-Pesa receipt, whichever channel recorded it (an STK callback's
 * MpesaReceiptNumber, a C2B or pulled TransID: a C2B row's trans_id is its mpesa_receipt), in one
 * statement that also says whether another tenant has recorded it (a receipt is one payment on the whole
 * platform: payments_mpesa_receipt_key).
 */
export async function findByReceipt(
  tx: RawSql,
  { tenantId, receipt }: { tenantId: string; receipt: string },
): Promise<ReceiptHolders> {
  const rows = await tx.$queryRaw<Record<string, unknown>[]>`
    SELECT own.*,
           EXISTS (SELECT 1 FROM payments
                    WHERE mpesa_receipt = ${receipt} AND tenant_id <> ${tenantId}) AS "recordedElsewhere"
      FROM (SELECT 1) AS one
      LEFT JOIN LATERAL (SELECT ${paymentsTable.columns} FROM payments
                          WHERE mpesa_receipt = ${receipt} AND tenant_id = ${tenantId}) AS own ON true`;
  const row = rows[0];
  if (row && row.id !== null && row.id !== undefined)
    return { own: paymentsTable.fromRow(row), recordedElsewhere: false };
  return { own: undefined, recordedElsewhere: row?.recordedElsewhere === true };
}

/** Which of `receipts` a payment of any tenant already holds (one statement, the receipts' unique index). */
export async function knownReceipts(sql: RawSql, receipts: readonly string[]): Promise<Set<string>> {
  if (receipts.length === 0) return new Set();
  const rows = await sql.$queryRaw<{ mpesa_receipt: string }[]>`
    SELECT mpesa_receipt FROM payments WHERE mpesa_receipt = ANY(${[...receipts]}::text[])`;
  return new Set(rows.map((row) => row.mpesa_receipt));
}

/** What a receipt seen elsewhere (Pull) is matched on among a tenant's STK payments. */
export interface StkPaymentMatch {
  tenantId: string;
  status: string;
  /** The account reference, matched case-insensitively. */
  reference: string;
  amount: number;
  /** Null: not compared (the receipt's phone is masked or absent). */
  phone: string | null;
  /** Created within [createdFrom, createdUntil]. */
  createdFrom: Date;
  createdUntil: Date;
}

function stkMatchCondition(match: StkPaymentMatch): Prisma.Sql {
  const phone = match.phone === null ? Prisma.empty : Prisma.sql`AND phone = ${match.phone}`;
  return Prisma.sql`
    tenant_id = ${match.tenantId} AND channel = 'stk' AND status = ${match.status} AND mpesa_receipt IS NULL
    AND lower(reference) = lower(${match.reference}) AND amount = ${match.amount}::int ${phone}
    AND created_at >= ${match.createdFrom} AND created_at <= ${match.createdUntil}`;
}

/** Locks (FOR UPDATE) up to `limit` of the tenant's STK payments without a receipt `match` describes, oldest first. */
export async function lockStkWithoutReceipt(
  tx: RawSql,
  match: StkPaymentMatch,
  limit: number,
): Promise<PaymentModel[]> {
  const rows = await tx.$queryRaw<Record<string, unknown>[]>`
    SELECT ${paymentsTable.columns} FROM payments WHERE ${stkMatchCondition(match)}
     ORDER BY created_at, id LIMIT ${limit}::int FOR UPDATE`;
  return rows.map((row) => paymentsTable.fromRow(row));
}

/** Whether any of the tenant's STK payments without a receipt fits `match`. */
export async function anyStkWithoutReceipt(sql: RawSql, match: StkPaymentMatch): Promise<boolean> {
  const rows = await sql.$queryRaw<unknown[]>`SELECT 1 FROM payments WHERE ${stkMatchCondition(match)} LIMIT 1`;
  return rows.length > 0;
}

/** Inserts a payment (columns the database defaults may be left out); the row as stored. */
export function insert(tx: RawSql, values: RowChanges<PaymentModel>): Promise<PaymentModel> {
  return insertRow(tx, paymentsTable, values);
}

/**
 * Lets the intent's C2B payment held as a duplicate count (intents.lockForSettlement found it): locked
 * first, then updated by a statement of its own, whose snapshot sees a refund committed while this
 * waited for the lock. Only a successful duplicate not being given back (no refund that is not FAILED)
 * is taken; undefined when it is being given back after all.
 */
export async function takeHeldDuplicate(
  tx: RawSql,
  { id, note, at }: { id: string; note: string; at: Date },
): Promise<PaymentModel | undefined> {
  await tx.$queryRaw`SELECT 1 FROM payments WHERE id = ${id}::uuid FOR UPDATE`;
  const rows = await tx.$queryRaw<Record<string, unknown>[]>`
    UPDATE payments SET duplicate = false, c2b_note = ${note}, updated_at = ${at}
     WHERE id = ${id}::uuid AND duplicate AND status = 'SUCCESS'
       AND NOT EXISTS (SELECT 1 FROM refunds r WHERE r.payment_id = payments.id AND r.status <> 'FAILED')
    RETURNING ${paymentsTable.columns}`;
  return rows[0] ? paymentsTable.fromRow(rows[0]) : undefined;
}

// ---- requests and reads (Prisma, through a tenant's client) -----------------------------------------

/** The payment a user's earlier request stored under this Idempotency-Key. */
export function findByIdempotencyKey(
  db: TenantDb,
  key: { tenantId: string; userId: string; idempotencyKey: string },
): Promise<PaymentModel | null> {
  return db.payment.findUnique({ where: { tenantId_userId_idempotencyKey: key } });
}

/** A payment to store: every column a request sets. */
export type NewPayment = Prisma.PaymentUncheckedCreateInput;

/** A prompt's payment (stkpush), as the request sets it; the other columns take the table's defaults. */
export interface NewPrompt {
  id: string;
  tenantId: string;
  userId: string;
  livemode: boolean;
  phone: string;
  amount: number;
  reference: string;
  description: string;
  idempotencyKey: string | null;
  callbackTokenForm: string;
  nextQueryAt: Date;
  /** Its updated_at too. */
  createdAt: Date;
}

/** The intent a prompt pays, started by the prompt's own statement: from one of `from` to `to`, unless expired by then. */
export interface IntentStart {
  intentId: string;
  from: readonly string[];
  to: string;
}

const paymentColumns = paymentsTable.columnList;
const promptColumns = `id, tenant_id, livemode, user_id, phone, amount, reference, description, idempotency_key,
       callback_token_form, next_query_at, created_at, updated_at, intent_id`;

/** Stores a prompt's payment without an intent, in the client's tenant and mode (one plain statement). */
export async function createPrompt(db: TenantDb, row: NewPrompt): Promise<PaymentModel> {
  const plain = tenantPlainFor(db, row);
  const rows = await plain.sql.query(
    `INSERT INTO payments (${promptColumns})
     VALUES ($2::uuid, $1, $12, $3::uuid, $4, $5, $6, $7, $8, $9, $10, $11, $11, NULL) RETURNING ${paymentColumns}`,
    [plain.tenantId, ...promptValues(row), row.livemode],
  );
  return paymentsTable.fromRow(rows[0]!);
}

/**
 * Stores a prompt's payment only if the same statement starts its intent: undefined when it could not
 * (another status, expired by the payment's created_at, not the client's). One plain statement,
 * prepared by name, at a fraction of the CPU of Prisma's interactive transaction: neither an intent
 * started without its payment nor a payment whose intent was not started can be left behind. A second
 * payment under the user's Idempotency-Key fails on the unique index, and starts nothing.
 */
export async function createPromptForIntent(db: TenantDb, row: NewPrompt, intent: IntentStart): Promise<PaymentModel | undefined> {
  const plain = tenantPlainFor(db, row);
  const rows = await plain.sql.query(
    `WITH started AS (
       UPDATE payment_intents SET status = $14, updated_at = $12
        WHERE ${plain.scope} AND id = $13 AND status IN (${sqlWords(intent.from)}) AND expires_at > $12 AND livemode = $15
       RETURNING id)
     INSERT INTO payments (${promptColumns})
     SELECT $3::uuid, $1::text, $15::boolean, $4::uuid, $5::text, $6::int, $7::text, $8::text, $9::text, $10::text,
            $11::timestamptz, $12::timestamptz, $12::timestamptz, started.id FROM started
     RETURNING ${paymentColumns}`,
    [...plain.scopeValues, ...promptValues(row), intent.intentId, intent.to, row.livemode],
  );
  return rows[0] ? paymentsTable.fromRow(rows[0]) : undefined;
}

/** A prompt's values from its id to its created_at, in promptColumns' order (tenant and mode left to the statement). */
function promptValues(row: NewPrompt): unknown[] {
  return [row.id, row.userId, row.phone, row.amount, row.reference, row.description, row.idempotencyKey, row.callbackTokenForm, row.nextQueryAt, row.createdAt];
}

/** What storing Daraja's ids for a prompt found: whether they were stored, and the payment's status and id then. */
export interface PromptAck {
  stored: boolean;
  status: string;
  checkoutRequestId: string | null;
}

/**
 * Stores Daraja's ids for the client's payment while it has none (one plain statement); the payment's
 * status and CheckoutRequestID either way, undefined when there is no such payment.
 */
export async function storePromptAck(
  db: TenantDb,
  ack: { id: string; checkoutRequestId: string; merchantRequestId: string; at: Date },
): Promise<PromptAck | undefined> {
  const plain = tenantPlainOf(db);
  const rows = await plain.sql.query(
    `WITH stored AS (
       UPDATE payments SET checkout_request_id = $4, merchant_request_id = $5, updated_at = $6
        WHERE ${plain.scope} AND id = $3::uuid AND checkout_request_id IS NULL
       RETURNING status, checkout_request_id)
     SELECT true AS stored, status, checkout_request_id FROM stored
     UNION ALL
     SELECT false, status, checkout_request_id FROM payments
      WHERE ${plain.scope} AND id = $3::uuid AND NOT EXISTS (SELECT 1 FROM stored)`,
    [...plain.scopeValues, ack.id, ack.checkoutRequestId, ack.merchantRequestId, ack.at],
  );
  const row = rows[0] as { stored: boolean; status: string; checkout_request_id: string | null } | undefined;
  return row && { stored: row.stored, status: row.status, checkoutRequestId: row.checkout_request_id };
}

export function create(client: AnyClient, data: NewPayment): Promise<PaymentModel> {
  return prismaOf(client).payment.create({ data });
}

export function find(client: AnyClient, id: string): Promise<PaymentModel | null> {
  return prismaOf(client).payment.findUnique({ where: { id } });
}

export function get(client: AnyClient, id: string): Promise<PaymentModel> {
  return prismaOf(client).payment.findUniqueOrThrow({ where: { id } });
}

/** The payment with its refunds, newest first. */
export function findWithRefunds(client: AnyClient, id: string): Promise<PaymentWithRefunds | null> {
  return prismaOf(client).payment.findFirst({ where: { id }, include: itsRefunds });
}

/** What a payment must still be for a write to apply. */
export interface PaymentGuard {
  id: string;
  status?: string | undefined;
  /** null: only while it has no CheckoutRequestID. */
  checkoutRequestId?: null | undefined;
}

function guarded({ id, status, checkoutRequestId }: PaymentGuard): Prisma.PaymentWhereInput {
  return {
    id,
    ...(status !== undefined ? { status } : {}),
    ...(checkoutRequestId === null ? { checkoutRequestId: null } : {}),
  };
}

/** Writes `changes` if the payment is still as `guard` says; whether it did. */
export async function updateIfStill(
  client: AnyClient,
  guard: PaymentGuard,
  changes: Prisma.PaymentUncheckedUpdateManyInput,
): Promise<boolean> {
  return (await prismaOf(client).payment.updateMany({ where: guarded(guard), data: changes })).count === 1;
}

/** Writes `changes` to the (locked) payment; the payment as it now is. */
export function update(
  client: AnyClient,
  id: string,
  changes: Prisma.PaymentUncheckedUpdateInput,
): Promise<PaymentModel> {
  return prismaOf(client).payment.update({ where: { id }, data: changes });
}

/** The payment with this CheckoutRequestID in the tenant, the user's own when `userId` is given. */
export function findByCheckoutId(
  db: TenantDb,
  { checkoutRequestId, tenantId, userId }: { checkoutRequestId: string; tenantId: string; userId?: string | undefined },
): Promise<PaymentModel | null> {
  return db.payment.findFirst({ where: { checkoutRequestId, tenantId, ...(userId !== undefined ? { userId } : {}) } });
}

/** One page of a keyset list (shared/keyset-page.ts): its conditions, order and size. */
export interface KeysetQuery {
  conditions: Prisma.PaymentWhereInput[];
  orderBy: readonly Prisma.PaymentOrderByWithRelationInput[];
  take: number;
}

/** The payments `scope` names (tenant, owner, channel, C2B match), one keyset page of them. */
export function listPage(
  db: TenantDb,
  scope: { tenantId?: string; userId?: string; channel?: string; c2bMatch?: string },
  page: KeysetQuery,
): Promise<PaymentModel[]> {
  return db.payment.findMany({
    where: { AND: [scope, ...page.conditions] },
    orderBy: [...page.orderBy],
    take: page.take,
  });
}

// ---- the reconciler ---------------------------------------------------------------------------------

/** A payment the reconciler claimed for an STK query. */
export interface ClaimedPayment {
  id: string;
  tenant_id: string;
  /** Its mode (docs/test-mode.md): a test payment is queried through the simulated provider. */
  livemode: boolean;
  checkout_request_id: string;
  query_attempts: number;
  created_at: Date;
}

/**
 * Claims the PENDING payments with a CheckoutRequestID whose STK query is due at `now`, at most
 * `limit`, in one statement: locked (other instances skip them), leased by moving the next query to
 * `leaseUntil`, and counted as an attempt.
 */
export function claimDueQueries(
  client: AnyClient,
  claim: { now: Date; leaseUntil: Date; limit: number },
): Promise<ClaimedPayment[]> {
  return prismaOf(client).$queryRaw<ClaimedPayment[]>`
    WITH due AS (
      SELECT id FROM payments
       WHERE status = 'PENDING' AND checkout_request_id IS NOT NULL
         AND (next_query_at IS NULL OR next_query_at <= ${claim.now})
       ORDER BY next_query_at NULLS FIRST
       LIMIT ${claim.limit}::int
         FOR UPDATE SKIP LOCKED
    )
    UPDATE payments p
       SET next_query_at = ${claim.leaseUntil}, query_attempts = p.query_attempts + 1
      FROM due
     WHERE p.id = due.id
    RETURNING p.id::text AS id, p.tenant_id, p.livemode, p.checkout_request_id, p.query_attempts, p.created_at`;
}

/** Every payment asked for by `from` made `to`'s (a guest's, when it signs in to an account); answers how many. */
export async function moveAllOfUser(tx: AnyClient, move: { from: string; to: string }): Promise<number> {
  const moved = await prismaOf(tx).payment.updateMany({ where: { userId: move.from }, data: { userId: move.to } });
  return moved.count;
}
