/**
 * Claiming due rows of an outbox table (mail_outbox, sms_outbox) for one worker: one statement, so one
 * transaction — the due rows are locked (other workers skip them) and leased by moving their next
 * attempt past the lease. The claim is fair between tenants (fair-claim.ts): a tenant gets at most
 * `perTenant` rows of it, taken in turns with the others. Rows come back oldest due first. The outboxes
 * differ only in their columns and in what else makes a row not worth sending, so both claim here.
 */
import { Prisma, type PrismaClient } from "../generated/prisma/client.js";
import { claimFairly } from "./fair-claim.js";

export interface OutboxClaimSpec {
  table: "mail_outbox" | "sms_outbox";
  /** The row's own columns to return, as `m.<column>` (the table is aliased `m`). */
  columns: readonly string[];
  /** More conditions a due row must meet, e.g. a text whose code has not expired. */
  stillWorthSending?: (now: Date) => Prisma.Sql;
}

export interface OutboxClaim {
  limit: number;
  now: Date;
  leaseMs: number;
  /** Rows of one tenant in the claim at most (a quarter of the batch: @mteja/kernel's quarterShare); no cap when absent. */
  perTenant?: number;
}

export async function claimDueOutboxRows<Row>(prisma: PrismaClient, spec: OutboxClaimSpec, { limit, now, leaseMs, perTenant }: OutboxClaim): Promise<Row[]> {
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
