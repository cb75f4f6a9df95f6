/**
 * The mail outbox table (`mail_outbox`): rows are inserted in the same transaction as the change
 * that causes a mail, and a worker claims, sends and marks them. The methods follow the
 * `OutboxStore` contract of @mteja/mailer (see its README); the types are restated here
 * structurally so this package does not depend on the mailer.
 */
import type { Prisma, PrismaClient } from "../generated/prisma/client.js";
import type { TenantTx } from "../tenant-scope.js";
import { claimDueOutboxRows, type OutboxClaim } from "./outbox-claim.js";

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
 * mail, so the mail exists exactly when that change committed. `now` is the service clock (the
 * worker compares against the same clock).
 */
export async function enqueueMail(tx: Prisma.TransactionClient, mail: OutboxInsert, now?: Date): Promise<string>;
export async function enqueueMail(tx: TenantTx, mail: OutboxInsert, now?: Date): Promise<string>;
export async function enqueueMail(tx: TenantTx | Prisma.TransactionClient, mail: OutboxInsert, now: Date = new Date()): Promise<string> {
  // Both clients have the same mailOutbox API; the scoped one also checks mail.tenantId is its tenant.
  const writer = tx as Prisma.TransactionClient;
  const row = await writer.mailOutbox.create({
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

interface ClaimedRow {
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

export function createMailOutboxStore<K extends string>(prisma: PrismaClient, options: MailOutboxStoreOptions<K>): MailOutboxStore<K> {
  return {
    async claimDue(claim) {
      const rows = await claimDueOutboxRows<ClaimedRow>(
        prisma,
        { table: "mail_outbox", columns: ["tenant_id", "kind", "to_address", "from_name", "subject", "text_body", "html_body", "attempts"] },
        claim,
      );
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
