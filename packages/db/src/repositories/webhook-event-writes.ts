/**
 * The event feed's writes as one part of a statement (docs/webhooks.md#events): a settlement writes
 * its row, the stored callback's outcome and the event reporting the change in one statement
 * (payments.settle, payouts.settle), so the feed and the rows never disagree, at one round trip.
 */
import { Prisma } from "../generated/prisma/client.js";

/** An event as written: its id drawn and its body serialised by the caller (the bytes each delivery signs). */
export interface EventRow {
  id: string;
  tenantId: string;
  /** The mode of the object it reports (docs/test-mode.md): only the endpoints of that mode receive it. */
  livemode: boolean;
  type: string;
  body: string;
  /** The time of the change: the event's created_at. */
  at: Date;
}

/** `eventWrites`' condition for a statement whose `updated` writes the changed row: only if it wrote it. */
export const ifUpdated = Prisma.sql`EXISTS (SELECT 1 FROM updated)`;

/**
 * The event and its fan-out as two common table expressions, `event` and `deliveries`: a delivery per
 * enabled endpoint subscribed to the type (a list subscribes to the types it names, anything else to
 * every type) and created in the event's mode. The deliveries' foreign key is checked at the statement's end, when the event row is
 * there. With `onlyIf`, written only when that condition holds (`ifUpdated`, say: a statement outside a
 * transaction has no rollback to undo an event whose change did not happen).
 */
export function eventWrites(event: EventRow, { onlyIf }: { onlyIf?: Prisma.Sql } = {}): Prisma.Sql {
  const values = Prisma.sql`${event.id}::text, ${event.tenantId}::text, ${event.type}::text, ${event.body}::text,
                            ${event.at}::timestamptz, ${event.livemode}::boolean`;
  const row = onlyIf ? Prisma.sql`SELECT ${values} WHERE ${onlyIf}` : Prisma.sql`VALUES (${values})`;
  return Prisma.sql`event AS (
      INSERT INTO webhook_events (id, tenant_id, type, body, created_at, livemode)
      ${row}
      RETURNING id, tenant_id, type, created_at, livemode
    ), deliveries AS (
      INSERT INTO webhook_deliveries
             (id, tenant_id, event_id, endpoint_id, status, attempts, next_attempt_at, created_at)
      SELECT gen_random_uuid(), event.tenant_id, event.id, endpoint.id, 'pending', 0, event.created_at, event.created_at
        FROM event JOIN webhook_endpoints endpoint ON endpoint.tenant_id = event.tenant_id
                                     AND endpoint.livemode = event.livemode
       WHERE endpoint.enabled AND endpoint.deleted_at IS NULL
         AND (jsonb_typeof(endpoint.events) <> 'array' OR endpoint.events @> jsonb_build_array(event.type))
      RETURNING id
    )`;
}
