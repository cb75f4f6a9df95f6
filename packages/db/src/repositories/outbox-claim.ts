/**
 * Claiming due rows of an outbox table (mail_outbox, sms_outbox) for one worker: one statement, so one
 * transaction — the due rows are locked (other workers skip them) and leased by moving their next
 * attempt past the lease. Rows come back oldest due first. The outboxes differ only in their columns
 * and in what else makes a row not worth sending, so both claim here.
 */
import { Prisma, type PrismaClient } from "../generated/prisma/client.js";

export interface OutboxClaimSpec {
  table: "mail_outbox" | "sms_outbox";
  /** The row's own columns to return, as `m.<column>` (the table is aliased `m`). */
  columns: readonly string[];
  /** More conditions a due row must meet, e.g. a text whose code has not expired. */
  stillWorthSending?: (now: Date) => Prisma.Sql;
}

export async function claimDueOutboxRows<Row>(
  prisma: PrismaClient,
  spec: OutboxClaimSpec,
  { limit, now, leaseMs }: { limit: number; now: Date; leaseMs: number },
): Promise<Row[]> {
  const leaseEnd = new Date(now.getTime() + leaseMs);
  const table = Prisma.raw(spec.table);
  const worthSending = spec.stillWorthSending ? Prisma.sql`AND ${spec.stillWorthSending(now)}` : Prisma.empty;
  const columns = Prisma.raw(spec.columns.map((column) => `m.${column}`).join(", "));
  const rows = await prisma.$queryRaw<(Row & { due_at: Date })[]>`
    WITH due AS (
      SELECT id, next_attempt_at AS due_at
        FROM ${table}
       WHERE sent_at IS NULL AND next_attempt_at <= ${now} ${worthSending}
       ORDER BY next_attempt_at
       LIMIT ${limit}::int
         FOR UPDATE SKIP LOCKED
    )
    UPDATE ${table} m
       SET next_attempt_at = ${leaseEnd}, locked_until = ${leaseEnd}
      FROM due
     WHERE m.id = due.id
    RETURNING m.id::text AS id, ${columns}, due.due_at`;
  return rows.sort((a, b) => new Date(a.due_at).getTime() - new Date(b.due_at).getTime());
}
