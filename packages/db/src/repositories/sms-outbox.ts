/**
 * The SMS outbox table (`sms_outbox`, docs/sms.md): rows are inserted in the same transaction as the
 * change that causes a text, and the worker of @mteja/sms claims, sends and marks them. The types are
 * restated here structurally so this package does not depend on the SMS package.
 */
import type { Prisma, PrismaClient } from "../generated/prisma/client.js";
import type { TenantTx } from "../tenant-scope.js";

export interface SmsInsert {
  tenantId: string;
  kind: string;
  to: string;
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
  claimDue(opts: { limit: number; now: Date; leaseMs: number }): Promise<ClaimedOutboxText[]>;
  markSent(id: string, sentAt: Date, answer: { outcome: "accepted" | "rejected"; messageId: string | null; status: string }): Promise<void>;
  markFailed(id: string, opts: { error: string; nextAttemptAt: Date; attempts: number }): Promise<void>;
}

export async function enqueueSms(tx: Prisma.TransactionClient, text: SmsInsert, now: Date): Promise<string>;
export async function enqueueSms(tx: TenantTx, text: SmsInsert, now: Date): Promise<string>;
export async function enqueueSms(tx: TenantTx | Prisma.TransactionClient, text: SmsInsert, now: Date): Promise<string> {
  const writer = tx as Prisma.TransactionClient;
  const row = await writer.smsOutbox.create({
    data: { tenantId: text.tenantId, kind: text.kind, toPhone: text.to, body: text.body, expiresAt: text.expiresAt, nextAttemptAt: now, createdAt: now },
    select: { id: true },
  });
  return row.id;
}

interface ClaimedRow {
  id: string;
  tenant_id: string;
  kind: string;
  to_phone: string;
  body: string;
  attempts: number;
  due_at: Date;
}

/**
 * `scrubBodiesOnSend`: blank a text's body once the provider has it. Bodies carry live codes; keeping
 * them would put usable codes in the database and its backups (kept outside production for the dev outbox).
 */
export function createSmsOutboxStore(prisma: PrismaClient, options: { scrubBodiesOnSend: boolean }): SmsOutboxStore {
  return {
    async claimDue({ limit, now, leaseMs }) {
      const leaseEnd = new Date(now.getTime() + leaseMs);
      // One statement: due rows locked (other workers skip them) and leased. A text whose code has
      // expired is not worth sending any more and is never claimed.
      const rows = await prisma.$queryRaw<ClaimedRow[]>`
        WITH due AS (
          SELECT id, next_attempt_at AS due_at
            FROM sms_outbox
           WHERE sent_at IS NULL AND next_attempt_at <= ${now} AND (expires_at IS NULL OR expires_at > ${now})
           ORDER BY next_attempt_at
           LIMIT ${limit}::int
             FOR UPDATE SKIP LOCKED
        )
        UPDATE sms_outbox m
           SET next_attempt_at = ${leaseEnd}, locked_until = ${leaseEnd}
          FROM due
         WHERE m.id = due.id
        RETURNING m.id::text AS id, m.tenant_id, m.kind, m.to_phone, m.body, m.attempts, due.due_at`;
      rows.sort((a, b) => new Date(a.due_at).getTime() - new Date(b.due_at).getTime());
      return rows.map((row) => ({ id: row.id, tenantId: row.tenant_id, kind: row.kind, to: row.to_phone, body: row.body, attempts: Number(row.attempts) }));
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
