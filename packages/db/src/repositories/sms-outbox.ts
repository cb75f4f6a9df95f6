/**
 * The SMS outbox table (`sms_outbox`, docs/sms.md): rows are inserted in the same transaction as the
 * change that causes a text, and the worker of @mteja/sms claims, sends and marks them. The types are
 * restated here structurally so this package does not depend on the SMS package.
 */
import { Prisma, type PrismaClient } from "../generated/prisma/client.js";
import { claimDueOutboxRows, type OutboxClaim } from "./outbox-claim.js";
import type { TenantTx } from "../tenant-scope.js";

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
  markSent(id: string, sentAt: Date, answer: { outcome: "accepted" | "rejected"; messageId: string | null; status: string }): Promise<void>;
  markFailed(id: string, opts: { error: string; nextAttemptAt: Date; attempts: number }): Promise<void>;
}

export async function enqueueSms(tx: Prisma.TransactionClient, text: SmsInsert, now: Date): Promise<string>;
export async function enqueueSms(tx: TenantTx, text: SmsInsert, now: Date): Promise<string>;
export async function enqueueSms(tx: TenantTx | Prisma.TransactionClient, text: SmsInsert, now: Date): Promise<string> {
  const writer = tx as Prisma.TransactionClient;
  const row = await writer.smsOutbox.create({
    data: { tenantId: text.tenantId, kind: text.kind, toPhone: text.to, userId: text.userId ?? null, body: text.body, expiresAt: text.expiresAt, nextAttemptAt: now, createdAt: now },
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
}

/**
 * `scrubBodiesOnSend`: blank a text's body once the provider has it. Bodies carry live codes; keeping
 * them would put usable codes in the database and its backups (kept outside production for the dev outbox).
 */
export function createSmsOutboxStore(prisma: PrismaClient, options: { scrubBodiesOnSend: boolean }): SmsOutboxStore {
  return {
    async claimDue(claim) {
      // A text whose code has expired is not worth sending any more and is never claimed.
      const rows = await claimDueOutboxRows<ClaimedRow>(
        prisma,
        { table: "sms_outbox", columns: ["tenant_id", "kind", "to_phone", "body", "attempts"], stillWorthSending: (at) => Prisma.sql`(expires_at IS NULL OR expires_at > ${at})` },
        claim,
      );
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
