/**
 * Renewing the leases of claimed rows (docs/deployment.md#leases-and-crashed-instances): each leased
 * worker's claim sets a row's lease column to when its lease ends (and other instances skip the row
 * until then); the worker holding it pushes that time forward while it works. A lease is renewed only
 * if its column still holds the time the worker set: a row that was finished meanwhile, or whose lease
 * ran out and another instance claimed, is left alone and reported as not renewed.
 */
import { Prisma } from "../generated/prisma/client.js";
import type { UnscopedDb } from "../doors.js";

/** The leased tables, each with the column its lease lives in (and whether `locked_until` mirrors it). */
const leasedTables = {
  webhook_deliveries: { column: "next_attempt_at", lockedUntil: true },
  mail_outbox: { column: "next_attempt_at", lockedUntil: true },
  sms_outbox: { column: "next_attempt_at", lockedUntil: true },
  payments: { column: "next_query_at", lockedUntil: false },
  payouts: { column: "next_status_query_at", lockedUntil: false },
  refunds: { column: "next_status_query_at", lockedUntil: false },
  pull_registrations: { column: "next_pull_at", lockedUntil: false },
} as const;

export type LeasedTable = keyof typeof leasedTables;

export interface HeldLease {
  id: string;
  /** When its lease ends, as the holder last set it. */
  until: Date;
}

/** Moves the lease of each row still leased as `held` says to `until`, in one statement; answers their ids. */
export async function renew(
  prisma: UnscopedDb,
  table: LeasedTable,
  held: readonly HeldLease[],
  until: Date,
): Promise<string[]> {
  if (held.length === 0) return [];
  const { column, lockedUntil } = leasedTables[table];
  const lease = Prisma.raw(column);
  const alsoLocked = lockedUntil ? Prisma.sql`, locked_until = ${until}` : Prisma.empty;
  const rows = await prisma.$queryRaw<{ id: string }[]>`
    UPDATE ${Prisma.raw(table)} t
       SET ${lease} = ${until}${alsoLocked}
      FROM jsonb_to_recordset(${JSON.stringify(held)}::jsonb) AS held(id uuid, until timestamptz)
     WHERE t.id = held.id AND t.${lease} = held.until
    RETURNING t.id::text AS id`;
  return rows.map((row) => row.id);
}
