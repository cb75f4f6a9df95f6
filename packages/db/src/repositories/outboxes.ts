/**
 * The outboxes (`mail_outbox`, docs/mail.md; `sms_outbox`, docs/sms.md): rows are inserted in the same
 * transaction as the change that causes a mail or a text, and a worker claims, sends and marks them.
 * The stores follow the `OutboxStore` contracts of @mteja/mailer and @mteja/sms (see their READMEs);
 * the types are restated here structurally so this package depends on neither.
 */
import { Prisma } from "../generated/prisma/client.js";
import type { UnscopedDb } from "../doors.js";
import type { MailOutboxModel, SmsOutboxModel } from "../generated/prisma/models.js";
import { plainOf } from "../plain-access.js";
import { prismaOf, type AnyClient } from "./clients.js";
import { claimFairly } from "./fair-claim.js";

/** The mails of every tenant not sent yet, and the age in seconds of the oldest (/metrics). */
export async function mailBacklog(db: UnscopedDb): Promise<{ count: number; oldestAgeSeconds: number }> {
  const rows = await plainOf(db).sql.query(
    "SELECT count(*)::int AS n, COALESCE(EXTRACT(EPOCH FROM now() - min(created_at)), 0)::float8 AS age FROM mail_outbox WHERE sent_at IS NULL",
  );
  return { count: Number(rows[0]?.n ?? 0), oldestAgeSeconds: Number(rows[0]?.age ?? 0) };
}

// --- The claim both outboxes share -------------------------------------------------------------

export interface OutboxClaim {
  limit: number;
  now: Date;
  leaseMs: number;
  /**
   * Rows of one tenant in the claim at most (a quarter of the batch: @mteja/shared's quarterShare); no
   * cap when absent.
   */
  perTenant?: number;
}

interface OutboxClaimSpec {
  table: "mail_outbox" | "sms_outbox";
  /** The row's own columns to return, as `m.<column>` (the table is aliased `m`). */
  columns: readonly string[];
  /** More conditions a due row must meet, e.g. a text whose code has not expired. */
  stillWorthSending?: (now: Date) => Prisma.Sql;
}

/**
 * Claims due rows of an outbox for one worker in one statement, so one transaction: the due rows are
 * locked (other workers skip them) and leased by moving their next attempt past the lease. The claim is
 * fair between tenants (fair-claim.ts): a tenant gets at most `perTenant` rows of it, taken in turns
 * with the others. Rows come back oldest due first.
 */
async function claimDueRows<Row>(
  prisma: UnscopedDb,
  spec: OutboxClaimSpec,
  { limit, now, leaseMs, perTenant }: OutboxClaim,
): Promise<Row[]> {
  const leaseEnd = new Date(now.getTime() + leaseMs);
  const table = Prisma.raw(spec.table);
  const worthSending = spec.stillWorthSending ? Prisma.sql`AND ${spec.stillWorthSending(now)}` : Prisma.empty;
  const due = Prisma.sql`sent_at IS NULL AND next_attempt_at <= ${now} ${worthSending}`;
  const columns = Prisma.raw(spec.columns.map((column) => `m.${column}`).join(", "));
  const rows = await claimFairly<Row & { due_at: Date }>(
    prisma,
    {
      table: spec.table,
      candidates: Prisma.sql`SELECT id, tenant_id, next_attempt_at AS due_at FROM ${table} WHERE ${due}`,
      claimable: due,
      lease: Prisma.sql`next_attempt_at = ${leaseEnd}, locked_until = ${leaseEnd}`,
      returning: Prisma.sql`m.id::text AS id, ${columns}, locked.due_at`,
    },
    { limit, perTenant: perTenant ?? limit },
  );
  return rows.sort((a, b) => new Date(a.due_at).getTime() - new Date(b.due_at).getTime());
}

/** What the dev outbox lists (GET /dev/outbox, /dev/outbox/texts): newest first, of one recipient or tenant. */
export interface NewestFilter {
  to?: string | undefined;
  tenantId?: string | undefined;
  limit: number;
}

const newestFirst = [{ createdAt: "desc" as const }, { id: "desc" as const }];

// --- Mail --------------------------------------------------------------------------------------

/** A mail to write to the outbox (what the mailer's `newOutboxMail` returns). */
export interface OutboxInsert {
  tenantId: string;
  to: string;
  fromName: string;
  kind: string;
  subject: string;
  text: string;
  html: string;
}

/** A claimed mail, as the worker sends it. */
export interface ClaimedOutboxMail<K extends string = string> extends Omit<OutboxInsert, "kind"> {
  id: string;
  attempts: number;
  kind: K;
}

export interface MailOutboxStore<K extends string> {
  claimDue(opts: OutboxClaim): Promise<ClaimedOutboxMail<K>[]>;
  markSent(id: string, sentAt: Date): Promise<void>;
  markFailed(id: string, opts: { error: string; nextAttemptAt: Date; attempts: number }): Promise<void>;
}

export interface MailOutboxStoreOptions<K extends string> {
  /** Recognises the kinds this build can send (the mailer's `isMailKind`). */
  isKind: (kind: string) => kind is K;
  /**
   * Blank the text and HTML bodies once a mail is sent. Bodies of verification and reset mails carry
   * live tokens; keeping them after delivery would put usable tokens in the database (and its backups).
   */
  scrubBodiesOnSend: boolean;
}

/**
 * Writes a mail to the outbox. Call it with the transaction client of the change that causes the
 * mail, so the mail exists exactly when that change committed (a tenant's client also checks
 * `mail.tenantId` is its tenant). `now` is the service clock (the worker compares against the same clock).
 */
export async function enqueueMail(tx: AnyClient, mail: OutboxInsert, now: Date = new Date()): Promise<string> {
  const row = await prismaOf(tx).mailOutbox.create({
    data: {
      tenantId: mail.tenantId,
      kind: mail.kind,
      toAddress: mail.to,
      fromName: mail.fromName,
      subject: mail.subject,
      textBody: mail.text,
      htmlBody: mail.html,
      nextAttemptAt: now,
      createdAt: now,
    },
    select: { id: true },
  });
  return row.id;
}

interface ClaimedMailRow {
  id: string;
  tenant_id: string;
  kind: string;
  to_address: string;
  from_name: string;
  subject: string;
  text_body: string;
  html_body: string;
  attempts: number;
}

const mailColumns = ["tenant_id", "kind", "to_address", "from_name", "subject", "text_body", "html_body", "attempts"];

export function createMailStore<K extends string>(
  prisma: UnscopedDb,
  options: MailOutboxStoreOptions<K>,
): MailOutboxStore<K> {
  return {
    async claimDue(claim) {
      const rows = await claimDueRows<ClaimedMailRow>(prisma, { table: "mail_outbox", columns: mailColumns }, claim);
      const claimed: ClaimedOutboxMail<K>[] = [];
      for (const row of rows) {
        // A kind this build does not know (written by a newer version during a rolling deploy) stays
        // leased and comes back when the lease runs out, for an instance that knows it.
        if (!options.isKind(row.kind)) continue;
        claimed.push({
          id: row.id,
          tenantId: row.tenant_id,
          kind: row.kind,
          to: row.to_address,
          fromName: row.from_name,
          subject: row.subject,
          text: row.text_body,
          html: row.html_body,
          attempts: Number(row.attempts),
        });
      }
      return claimed;
    },

    async markSent(id, sentAt) {
      await prisma.mailOutbox.updateMany({
        where: { id, sentAt: null },
        data: {
          sentAt,
          lockedUntil: null,
          lastError: null,
          ...(options.scrubBodiesOnSend ? { textBody: "", htmlBody: "" } : {}),
        },
      });
    },

    async markFailed(id, { error, nextAttemptAt, attempts }) {
      await prisma.mailOutbox.updateMany({
        where: { id, sentAt: null },
        data: { attempts, nextAttemptAt, lastError: error, lockedUntil: null },
      });
    },
  };
}

/** Mails to `address` not sent yet, cancelled (deleted). */
export async function cancelUnsentMailTo(tx: AnyClient, address: string): Promise<void> {
  await prismaOf(tx).mailOutbox.deleteMany({ where: { toAddress: address, sentAt: null } });
}

export function newestMails(db: AnyClient, filter: NewestFilter): Promise<MailOutboxModel[]> {
  return prismaOf(db).mailOutbox.findMany({
    where: {
      ...(filter.to ? { toAddress: filter.to } : {}),
      ...(filter.tenantId ? { tenantId: filter.tenantId } : {}),
    },
    orderBy: newestFirst,
    take: filter.limit,
  });
}

// --- Texts -------------------------------------------------------------------------------------

export interface SmsInsert {
  tenantId: string;
  kind: string;
  to: string;
  /** The account it is written for, when it is one's (an erasure finds every phone the account has had by it). */
  userId?: string | null;
  body: string;
  /** Not sent after this (a code that has expired). */
  expiresAt: Date | null;
}

export interface ClaimedOutboxText {
  id: string;
  tenantId: string;
  kind: string;
  to: string;
  body: string;
  attempts: number;
}

export interface SmsOutboxStore {
  claimDue(opts: OutboxClaim): Promise<ClaimedOutboxText[]>;
  markSent(
    id: string,
    sentAt: Date,
    answer: { outcome: "accepted" | "rejected"; messageId: string | null; status: string },
  ): Promise<void>;
  markFailed(id: string, opts: { error: string; nextAttemptAt: Date; attempts: number }): Promise<void>;
}

/** Writes a text to the outbox, in the transaction of the change that causes it (as `enqueueMail`). */
export async function enqueueText(tx: AnyClient, text: SmsInsert, now: Date): Promise<string> {
  const row = await prismaOf(tx).smsOutbox.create({
    data: {
      tenantId: text.tenantId,
      kind: text.kind,
      toPhone: text.to,
      userId: text.userId ?? null,
      body: text.body,
      expiresAt: text.expiresAt,
      nextAttemptAt: now,
      createdAt: now,
    },
    select: { id: true },
  });
  return row.id;
}

interface ClaimedTextRow {
  id: string;
  tenant_id: string;
  kind: string;
  to_phone: string;
  body: string;
  attempts: number;
}

/**
 * `scrubBodiesOnSend`: blank a text's body once the provider has it. Bodies carry live codes; keeping
 * them would put usable codes in the database and its backups (kept outside production for the dev outbox).
 */
export function createTextStore(prisma: UnscopedDb, options: { scrubBodiesOnSend: boolean }): SmsOutboxStore {
  return {
    async claimDue(claim) {
      // A text whose code has expired is not worth sending any more and is never claimed.
      const rows = await claimDueRows<ClaimedTextRow>(
        prisma,
        {
          table: "sms_outbox",
          columns: ["tenant_id", "kind", "to_phone", "body", "attempts"],
          stillWorthSending: (at) => Prisma.sql`(expires_at IS NULL OR expires_at > ${at})`,
        },
        claim,
      );
      return rows.map((row) => ({
        id: row.id,
        tenantId: row.tenant_id,
        kind: row.kind,
        to: row.to_phone,
        body: row.body,
        attempts: Number(row.attempts),
      }));
    },

    async markSent(id, sentAt, answer) {
      await prisma.smsOutbox.updateMany({
        where: { id, sentAt: null },
        data: {
          sentAt,
          lockedUntil: null,
          lastError: null,
          sendStatus: answer.status.slice(0, 60),
          providerMessageId: answer.messageId,
          ...(answer.outcome === "rejected" ? { deliveryStatus: "Rejected", deliveryUpdatedAt: sentAt } : {}),
          ...(options.scrubBodiesOnSend ? { body: "" } : {}),
        },
      });
    },

    async markFailed(id, { error, nextAttemptAt, attempts }) {
      await prisma.smsOutbox.updateMany({
        where: { id, sentAt: null },
        data: { attempts, nextAttemptAt, lastError: error, lockedUntil: null },
      });
    },
  };
}

/** The texts written to a phone while it had no account, given to the account that now has it. */
export async function assignUnownedTexts(tx: AnyClient, to: string, userId: string): Promise<void> {
  await prismaOf(tx).smsOutbox.updateMany({ where: { toPhone: to, userId: null }, data: { userId } });
}

/** The text Africa's Talking knows by `messageId`, locked until the transaction ends (reports for it wait). */
export async function lockTextByMessageId(
  tx: AnyClient,
  messageId: string,
): Promise<{ id: string; deliveryStatus: string | null } | undefined> {
  const [row] = await prismaOf(tx).$queryRaw<{ id: string; delivery_status: string | null }[]>`
    SELECT id::text AS id, delivery_status FROM sms_outbox WHERE provider_message_id = ${messageId} FOR UPDATE`;
  return row && { id: row.id, deliveryStatus: row.delivery_status };
}

export async function recordDeliveryReport(
  tx: AnyClient,
  id: string,
  report: { status: string; failureReason: string | null; at: Date },
): Promise<void> {
  await prismaOf(tx).smsOutbox.update({
    where: { id },
    data: { deliveryStatus: report.status, deliveryFailureReason: report.failureReason, deliveryUpdatedAt: report.at },
  });
}

export function newestTexts(db: AnyClient, filter: NewestFilter): Promise<SmsOutboxModel[]> {
  return prismaOf(db).smsOutbox.findMany({
    where: {
      ...(filter.to ? { toPhone: filter.to } : {}),
      ...(filter.tenantId ? { tenantId: filter.tenantId } : {}),
    },
    orderBy: newestFirst,
    take: filter.limit,
  });
}

/** The phones of the texts written for an account (as stored: `+2547…`). */
export async function phonesTextedFor(db: AnyClient, userId: string): Promise<string[]> {
  const rows = await prismaOf(db).smsOutbox.findMany({
    where: { userId },
    select: { toPhone: true },
    distinct: ["toPhone"],
  });
  return rows.map((row) => row.toPhone);
}

/** Texts to any of `recipients` written for the account `writtenFor` or for no account. */
export interface AccountTexts {
  recipients: readonly string[];
  writtenFor: string;
}

function accountTextsWhere(texts: AccountTexts, sent: boolean) {
  return {
    toPhone: { in: [...texts.recipients] },
    sentAt: sent ? { not: null } : null,
    OR: [{ userId: texts.writtenFor }, { userId: null }],
  };
}

/** The first `limit` of these texts already sent, by id. */
export function sentTexts(
  db: AnyClient,
  texts: AccountTexts,
  limit: number,
): Promise<{ id: string; toPhone: string; body: string }[]> {
  return prismaOf(db).smsOutbox.findMany({
    where: accountTextsWhere(texts, true),
    orderBy: { id: "asc" },
    take: limit,
    select: { id: true, toPhone: true, body: true },
  });
}

/** These texts not sent yet, cancelled (deleted). */
export async function cancelUnsentTexts(tx: AnyClient, texts: AccountTexts): Promise<void> {
  await prismaOf(tx).smsOutbox.deleteMany({ where: accountTextsWhere(texts, false) });
}

/** A text's recipient and body replaced (an erasure masks the phone in them). */
export async function rewriteText(db: AnyClient, id: string, text: { toPhone: string; body: string }): Promise<void> {
  await prismaOf(db).smsOutbox.updateMany({ where: { id }, data: { toPhone: text.toPhone, body: text.body } });
}
