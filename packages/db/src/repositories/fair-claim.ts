/**
 * The one fair claim of the leased workers (webhook deliveries, mail_outbox, sms_outbox): one statement
 * that picks rows by the fair share of @mteja/shared's `fairPick` (a tenant at most its share, in turns
 * across tenants — docs/webhooks.md#fairness), locks the rows it picked with FOR UPDATE SKIP LOCKED,
 * checking again that each is still claimable, and leases them. Only the rows taken are locked and
 * leased, so rows left behind stay free for this instance's next claim and for other instances.
 */
import { Prisma } from "../generated/prisma/client.js";
import type { UnscopedDb } from "../doors.js";
import { plainOf } from "../plain-access.js";

export interface FairClaimShare {
  /** Rows taken at most: the instance's free slots. */
  limit: number;
  /** Rows of one tenant in flight at most, those already in flight included. */
  perTenant: number;
  /** This instance's rows in flight, per tenant (none when absent). */
  tenantsInFlight?: ReadonlyMap<string, number>;
}

export interface FairClaimSpec {
  /** The table claimed from; it has `id`, `tenant_id` and `next_attempt_at`. */
  table: "webhook_deliveries" | "mail_outbox" | "sms_outbox";
  /**
   * The rows ready to send, as `id, tenant_id, due_at` (endpoint caps, where there are any, already
   * applied): the candidates the fair share picks from.
   */
  candidates: Prisma.Sql;
  /** A row is still claimable (its columns unqualified): checked again under the row lock. */
  claimable: Prisma.Sql;
  /** The lease: the SET list of the claim's UPDATE. */
  lease: Prisma.Sql;
  /** What the claim returns, the table aliased `m` (and `locked.due_at`, the row's due time before the lease). */
  returning: Prisma.Sql;
}

/** JSON of `{ key: count }`, for a parameter read with `->>` in SQL. */
export function countsJson(counts: ReadonlyMap<string, number> | undefined): string {
  return JSON.stringify(Object.fromEntries(counts ?? []));
}

/** The ids of the candidates a fair claim takes, in `fairPick`'s order: by turn, then oldest due. */
function fairPickSql(candidates: Prisma.Sql, share: FairClaimShare): Prisma.Sql {
  return Prisma.sql`
    SELECT ranked.id FROM (
      SELECT c.id, c.due_at,
             COALESCE((${countsJson(share.tenantsInFlight)}::jsonb ->> c.tenant_id)::int, 0)
               + row_number() OVER (PARTITION BY c.tenant_id ORDER BY c.due_at, c.id) AS turn
        FROM (${candidates}) c
    ) ranked
     WHERE ranked.turn <= ${share.perTenant}::int
     ORDER BY ranked.turn, ranked.due_at, ranked.id
     LIMIT ${share.limit}::int`;
}

/**
 * The claim, as one plain statement prepared by name (plainOf): every settlement's nudge and every
 * send's freed slot claims again, and Prisma's raw query cost several times the statement's CPU.
 */
export async function claimFairly<Row>(db: UnscopedDb, spec: FairClaimSpec, share: FairClaimShare): Promise<Row[]> {
  if (share.limit <= 0) return [];
  const table = Prisma.raw(spec.table);
  return plainOf(db).autocommit.$queryRaw<Row[]>`
    WITH picked AS (${fairPickSql(spec.candidates, share)}),
    locked AS (
      SELECT t.id, t.next_attempt_at AS due_at
        FROM ${table} t
       WHERE t.id IN (SELECT id FROM picked) AND ${spec.claimable}
         FOR UPDATE SKIP LOCKED
    )
    UPDATE ${table} m
       SET ${spec.lease}
      FROM locked
     WHERE m.id = locked.id
    RETURNING ${spec.returning}`;
}
