/**
 * The transactional outbox of the event feed (docs/webhooks.md): an event is written in the
 * transaction of the change it reports, together with one delivery row per enabled endpoint
 * subscribed to its type. A rollback takes the event with it; a commit makes its delivery certain
 * (the worker claims the delivery rows, whichever instance and however often it restarts).
 */
import type { Prisma } from "@mteja/db";
import type { WebhookEventData, WebhookEventType } from "./event-types.js";
import { subscribes } from "./subscriptions.js";

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

/** Writes the event and its deliveries inside the caller's transaction; answers the event's id. */
export async function recordEvent(tx: Prisma.TransactionClient, event: NewEvent): Promise<string> {
  // The id is drawn by the database: the settlement paths that call this have a clock but no random port.
  const [drawn] = await tx.$queryRaw<{ id: string }[]>`SELECT 'evt_' || replace(gen_random_uuid()::text, '-', '') AS id`;
  const id = drawn!.id;
  await tx.webhookEvent.create({ data: { id, tenantId: event.tenantId, type: event.type, body: eventBody(id, event), createdAt: event.at } });
  const endpoints = await tx.webhookEndpoint.findMany({ where: { tenantId: event.tenantId, enabled: true, deletedAt: null }, select: { id: true, events: true } });
  const subscribed = endpoints.filter((endpoint) => subscribes(endpoint.events, event.type));
  if (subscribed.length > 0) {
    await tx.webhookDelivery.createMany({
      data: subscribed.map((endpoint) => ({ tenantId: event.tenantId, eventId: id, endpointId: endpoint.id, nextAttemptAt: event.at, createdAt: event.at })),
    });
  }
  return id;
}
