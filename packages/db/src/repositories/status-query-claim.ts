/** The reconciler's claim of the payouts and refunds whose Transaction Status query is due. */
import { Prisma } from "../generated/prisma/client.js";
import { prismaOf, type AnyClient } from "./clients.js";

export interface StatusQueryClaim {
  /** The statuses whose outcome is still open (the caller's rule). */
  statuses: readonly string[];
  now: Date;
  leaseUntil: Date;
  limit: number;
}

/**
 * Claims the rows of `table` in one of `statuses` whose status query is due at `now`, at most `limit`,
 * for this run alone: locked (other instances skip them), leased by moving the next query to
 * `leaseUntil`, and counted as an attempt. `returning` names the columns the caller needs (the table
 * is aliased `r`).
 */
export function claimDueStatusQueries<Row>(
  client: AnyClient,
  table: "payouts" | "refunds",
  returning: readonly string[],
  claim: StatusQueryClaim,
): Promise<Row[]> {
  const name = Prisma.raw(table);
  const columns = Prisma.raw(returning.map((column) => `r.${column}`).join(", "));
  return prismaOf(client).$queryRaw<Row[]>`
    WITH due AS (
      SELECT id FROM ${name}
       WHERE status IN (${Prisma.join(claim.statuses)}) AND next_status_query_at <= ${claim.now}
       ORDER BY next_status_query_at
       LIMIT ${claim.limit}::int
         FOR UPDATE SKIP LOCKED
    )
    UPDATE ${name} r
       SET next_status_query_at = ${claim.leaseUntil}, status_query_attempts = r.status_query_attempts + 1
      FROM due
     WHERE r.id = due.id
    RETURNING r.id::text AS id, ${columns}`;
}
