/**
 * The transactional outbox of the event feed (docs/webhooks.md): an event is written in the
 * transaction of the change it reports, together with one delivery row per enabled endpoint
 * subscribed to its type. A rollback takes the event with it; a commit makes its delivery certain
 * (the worker claims the delivery rows, whichever instance and however often it restarts).
 */
import { webhooks, type RawSql } from "@mteja/db";
import type { Random } from "@mteja/shared";
import type { WebhookEventData, WebhookEventType } from "./event-types.js";

export interface NewEvent {
  tenantId: string;
  /** The mode of the object it reports (docs/test-mode.md): an endpoint receives only its own mode's events. */
  livemode: boolean;
  type: WebhookEventType;
  data: WebhookEventData;
  /** The time of the change (the transaction's clock reading): the event's created_at. */
  at: Date;
}

/** The body every delivery of the event carries, serialised once so each attempt signs the same bytes. */
export function eventBody(id: string, event: NewEvent): string {
  const { type, tenantId, livemode, data } = event;
  return JSON.stringify({ id, type, created_at: event.at.toISOString(), tenant_id: tenantId, livemode, data });
}

/** Draws event ids (`evt_` and 32 hex digits) without a round trip to the database. */
export type EventIds = () => string;

export function eventIdsFrom(random: Random): EventIds {
  return () => `evt_${random.uuid().replace(/-/g, "")}`;
}

/** The event as stored, its body serialised once. */
function eventRow(id: string, event: NewEvent): webhooks.EventRow {
  return { id, tenantId: event.tenantId, livemode: event.livemode, type: event.type, body: eventBody(id, event), at: event.at };
}

/**
 * Writes the event and its deliveries inside the caller's transaction, in one statement; answers the
 * event's id. Paths that hold the random port pass `eventIds`; the others (some settlement paths have
 * a clock but no random port) let the database draw the id, in one more statement.
 */
export async function recordEvent(tx: RawSql, event: NewEvent, eventIds?: EventIds): Promise<string> {
  const id = eventIds ? eventIds() : await webhooks.drawEventId(tx);
  await webhooks.recordEvent(tx, eventRow(id, event));
  return id;
}
