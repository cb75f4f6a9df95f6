/**
 * The transactional outbox of the event feed (docs/webhooks.md): an event is written in the
 * transaction of the change it reports, together with one delivery row per enabled endpoint
 * subscribed to its type. A rollback takes the event with it; a commit makes its delivery certain
 * (the worker claims the delivery rows, whichever instance and however often it restarts).
 */
import { Prisma, type RawSql } from "@mteja/db";
import type { Random } from "@mteja/kernel";
import type { WebhookEventData, WebhookEventType } from "./event-types.js";

export interface NewEvent {
  tenantId: string;
  type: WebhookEventType;
  data: WebhookEventData;
  /** The time of the change (the transaction's clock reading): the event's created_at. */
  at: Date;
}

/** The body every delivery of the event carries, serialised once so each attempt signs the same bytes. */
export function eventBody(id: string, event: NewEvent): string {
  return JSON.stringify({ id, type: event.type, created_at: event.at.toISOString(), tenant_id: event.tenantId, data: event.data });
}

/** Draws event ids (`evt_` and 32 hex digits) without a round trip to the database. */
export type EventIds = () => string;

export function eventIdsFrom(random: Random): EventIds {
  return () => `evt_${random.uuid().replace(/-/g, "")}`;
}

/**
 * The event and its fan-out as two common table expressions, `event` and `deliveries`, for one statement
 * with other writes (updateRow's `alsoWrite`, with `onlyIfUpdated`): a delivery per enabled endpoint subscribed to the type.
 * The rule of subscriptions.ts in SQL: a list subscribes to the types it names, anything else to every
 * type. The deliveries' foreign key is checked at the statement's end, when the event row is there.
 */
export function eventWrites(id: string, event: NewEvent, { onlyIfUpdated = false }: { onlyIfUpdated?: boolean } = {}): Prisma.Sql {
  const values = Prisma.sql`${id}::text, ${event.tenantId}::text, ${event.type}::text, ${eventBody(id, event)}::text, ${event.at}::timestamptz`;
  // With `onlyIfUpdated`, written only when the statement's `updated` (updateRowIf) wrote its row: a
  // statement outside a transaction has no rollback to undo an event whose change did not happen.
  return Prisma.sql`event AS (
      INSERT INTO webhook_events (id, tenant_id, type, body, created_at)
      ${onlyIfUpdated ? Prisma.sql`SELECT ${values} WHERE EXISTS (SELECT 1 FROM updated)` : Prisma.sql`VALUES (${values})`}
      RETURNING id, tenant_id, type, created_at
    ), deliveries AS (
      INSERT INTO webhook_deliveries (id, tenant_id, event_id, endpoint_id, status, attempts, next_attempt_at, created_at)
      SELECT gen_random_uuid(), event.tenant_id, event.id, endpoint.id, 'pending', 0, event.created_at, event.created_at
        FROM event JOIN webhook_endpoints endpoint ON endpoint.tenant_id = event.tenant_id
       WHERE endpoint.enabled AND endpoint.deleted_at IS NULL
         AND (jsonb_typeof(endpoint.events) <> 'array' OR endpoint.events @> jsonb_build_array(event.type))
      RETURNING id
    )`;
}

/**
 * Writes the event and its deliveries inside the caller's transaction, in one statement; answers the
 * event's id. Paths that hold the random port pass `eventIds`; the others (some settlement paths have
 * a clock but no random port) let the database draw the id, in one more statement.
 */
export async function recordEvent(tx: RawSql, event: NewEvent, eventIds?: EventIds): Promise<string> {
  const id = eventIds ? eventIds() : await drawEventId(tx);
  await tx.$queryRaw`WITH ${eventWrites(id, event)} SELECT count(*)::int AS deliveries FROM deliveries`;
  return id;
}

async function drawEventId(tx: RawSql): Promise<string> {
  const [drawn] = await tx.$queryRaw<{ id: string }[]>`SELECT 'evt_' || replace(gen_random_uuid()::text, '-', '') AS id`;
  return drawn!.id;
}
