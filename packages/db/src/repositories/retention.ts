/**
 * The pruning job's deletes (docs/operations.md#retention), across the tables of several repositories.
 * Which rows have been kept long enough is the domain's rule (retention/rules.ts): it names them as
 * `ExpiredRows`, and the cutoff; this runs the delete, in batches.
 */
import { Prisma } from "../generated/prisma/client.js";
import type { UnscopedDb } from "../doors.js";
import type {
  MailOutboxModel,
  OidcNonceModel,
  OneTimeTokenModel,
  PasskeyChallengeModel,
  PhoneCodeModel,
  SecurityEventModel,
  SessionModel,
  SmsOutboxModel,
} from "../generated/prisma/models.js";
import { columnOf } from "../model-rows.js";

/** The tables whose rows expire by their own times alone. */
interface TimedModels {
  mail_outbox: MailOutboxModel;
  one_time_tokens: OneTimeTokenModel;
  sessions: SessionModel;
  sms_outbox: SmsOutboxModel;
  phone_codes: PhoneCodeModel;
  passkey_challenges: PasskeyChallengeModel;
  oidc_nonces: OidcNonceModel;
  security_events: SecurityEventModel;
}

type TimeField<Model> = Extract<{ [K in keyof Model]: Model[K] extends Date | null ? K : never }[keyof Model], string>;

/** Rows of `table` one of whose `anyBefore` times (fields of its model) is before the cutoff. */
export type TimedRows = {
  [T in keyof TimedModels]: { table: T; anyBefore: readonly TimeField<TimedModels[T]>[] };
}[keyof TimedModels];

/**
 * Events created before the cutoff that every endpoint has finished with: none of their deliveries
 * pending, none finished since.
 */
export interface FinishedEvents {
  table: "webhook_events";
  finishedWith: true;
}

/** Stored callbacks received before the cutoff that are any of these. */
export interface DisposableCallbacks {
  table: "momo_callbacks";
  /** Refused before they were read: this outcome, with one of these flag reasons. */
  refusedUnread: { outcome: string; flagReasons: readonly string[] };
  /** Of one of these kinds, whatever their outcome. */
  kinds: readonly string[];
  /**
   * Of one of these outcomes and naming a payment or payout (whose row records the money), unless the
   * payment's C2B match is one of `keptForC2bMatch`.
   */
  recorded: { outcomes: readonly string[]; keptForC2bMatch: readonly string[] };
}

/**
 * Accounts of a role created before the cutoff none of whose sessions was opened, used or refreshed
 * since (guests left unused). Their payments are kept, no longer naming them.
 */
export interface UnusedAccounts {
  table: "users";
  unusedWithRole: string;
}

export type ExpiredRows = TimedRows | FinishedEvents | DisposableCallbacks | UnusedAccounts;

const tables = new Set<string>([
  "mail_outbox",
  "one_time_tokens",
  "sessions",
  "sms_outbox",
  "phone_codes",
  "passkey_challenges",
  "oidc_nonces",
  "security_events",
  "webhook_events",
  "momo_callbacks",
  "users",
]);

const timeField = /^[a-z][A-Za-z]*At$/;

function expiredCondition(rows: ExpiredRows, cutoff: Prisma.Sql): Prisma.Sql {
  if (rows.table === "users") {
    return Prisma.sql`role = ${rows.unusedWithRole} AND created_at < ${cutoff} AND NOT EXISTS (
      SELECT 1 FROM sessions s
       WHERE s.user_id = users.id
         AND (s.created_at >= ${cutoff} OR s.last_refreshed_at >= ${cutoff} OR s.last_used_at >= ${cutoff}))`;
  }
  if (rows.table === "webhook_events") {
    return Prisma.sql`created_at < ${cutoff} AND NOT EXISTS (
      SELECT 1 FROM webhook_deliveries d
       WHERE d.event_id = webhook_events.id AND (d.status = 'pending' OR d.finished_at >= ${cutoff}))`;
  }
  if (rows.table === "momo_callbacks") {
    const { refusedUnread, kinds, recorded } = rows;
    return Prisma.sql`received_at < ${cutoff} AND (
      (outcome = ${refusedUnread.outcome} AND flag_reason IN (${Prisma.join(refusedUnread.flagReasons)}))
      OR kind IN (${Prisma.join(kinds)})
      OR (outcome IN (${Prisma.join(recorded.outcomes)})
          AND (payment_id IS NOT NULL OR payout_id IS NOT NULL)
          AND NOT EXISTS (SELECT 1 FROM payments p
                           WHERE p.id = momo_callbacks.payment_id
                             AND p.c2b_match IN (${Prisma.join(recorded.keptForC2bMatch)}))))`;
  }
  const fields: readonly string[] = rows.anyBefore;
  if (fields.length === 0 || !fields.every((field) => timeField.test(field))) {
    throw new RangeError(`no times to expire ${rows.table} by`);
  }
  const passed = fields.map((field) => Prisma.sql`${Prisma.raw(columnOf(field))} < ${cutoff}`);
  return Prisma.sql`(${Prisma.join(passed, " OR ")})`;
}

/**
 * Deletes the expired rows, `batchSize` per statement (a large backlog goes in many short statements,
 * never one long one); answers how many. Any number of runs may go at once: each batch locks its rows
 * with SKIP LOCKED, so two runs never wait for nor delete the same rows.
 */
export async function pruneExpired(
  db: UnscopedDb,
  rows: ExpiredRows,
  cutoff: Date,
  batchSize: number,
): Promise<number> {
  if (!tables.has(rows.table)) throw new RangeError(`${rows.table} is not pruned`);
  if (!Number.isInteger(batchSize) || batchSize <= 0) throw new RangeError("batchSize must be a whole number above 0");
  const table = Prisma.raw(`"${rows.table}"`);
  const expired = expiredCondition(rows, Prisma.sql`${cutoff}::timestamptz`);
  const batch = Prisma.raw(String(batchSize));
  let deleted = 0;
  for (;;) {
    const count = rows.table === "users" ? await deleteAccountsKeepingPayments(db, expired, batch) : await db.$executeRaw`
      DELETE FROM ${table}
       WHERE id IN (SELECT id FROM ${table} WHERE ${expired} LIMIT ${batch} FOR UPDATE SKIP LOCKED)`;
    deleted += count;
    if (count < batchSize) return deleted;
  }
}

/**
 * One batch of accounts deleted in one statement, their payments kept with no user (the payment's
 * foreign key restricts the delete otherwise); sessions, tokens and addresses go with them (ON DELETE
 * CASCADE).
 */
function deleteAccountsKeepingPayments(db: UnscopedDb, expired: Prisma.Sql, batch: Prisma.Sql): Promise<number> {
  return db.$executeRaw`
    WITH doomed AS (SELECT id, tenant_id FROM users WHERE ${expired} LIMIT ${batch} FOR UPDATE SKIP LOCKED),
         kept AS (UPDATE payments p SET user_id = NULL FROM doomed d WHERE p.tenant_id = d.tenant_id AND p.user_id = d.id RETURNING p.id)
    DELETE FROM users WHERE id IN (SELECT id FROM doomed)`;
}
