/** The event feed as the shop reads it (GET /api/v1/webhook-events) and sends it again (redeliver). */
import { webhooks } from "@mteja/db";
import { DomainError } from "../shared/errors.js";
import type { TenantCtx } from "./ports.js";
import type { WebhookEventType } from "./event-types.js";
import { subscribes } from "./subscriptions.js";

const badCursor = () =>
  new DomainError("VALIDATION_ERROR", undefined, { details: [{ path: "cursor", message: "detail.cursor" }] });

/** Newest first, keyset on (created_at, id); the cursor is the id of the last event shown. */
export async function listEvents(ctx: TenantCtx, page: { limit: number; cursor?: string | undefined }) {
  const after = page.cursor ? await webhooks.findEvent(ctx.db, page.cursor) : null;
  if (page.cursor && !after) throw badCursor();
  const rows = await webhooks.eventsNewestFirst(ctx.db, { after, limit: page.limit + 1 });
  const shown = rows.slice(0, page.limit);
  const attempts = await webhooks.attemptsAt(ctx.db, shown.map((row) => row.id));
  const last = shown[shown.length - 1];
  return {
    webhook_events: shown.map((row) => ({
      ...(JSON.parse(row.body) as { id: string; type: string; created_at: string; tenant_id: string; data: Record<string, unknown> }),
      // The row's, not the body's: events written before test mode have none in their body.
      livemode: row.livemode,
      attempts: attempts
        .filter((attempt) => attempt.eventId === row.id)
        .map((attempt) => ({ endpoint_id: attempt.endpointId, attempted_at: attempt.attemptedAt.toISOString(), status_code: attempt.statusCode, error: attempt.error })),
    })),
    next_cursor: rows.length > page.limit && last ? last.id : null,
  };
}

/**
 * Queues the event again, now, with the same id and body, for every enabled endpoint subscribed to its
 * type (docs/webhooks.md#redelivery): at most webhook_redeliveries_per_event times an hour (429). An
 * endpoint that still has the event pending is not queued twice: a retry it is waiting for is brought
 * forward instead (one being sent right now is left to finish). Calls for one event are serialised by a
 * lock on its row, so two at once queue it once.
 */
export async function redeliverEvent(ctx: TenantCtx, id: string) {
  const event = await webhooks.findEvent(ctx.db, id);
  if (!event) throw new DomainError("NOT_FOUND", "not_found.webhook_event");
  const allowed = await ctx.deps.limiter.consume("webhook_redeliveries_per_event", `${ctx.tenant.id}:${event.id}`);
  if (!allowed.allowed) throw new DomainError("RATE_LIMITED", "limits.webhook_redeliveries", { retryAfter: allowed.retryAfter });
  const endpoints = await webhooks.deliverableEndpoints(ctx.db);
  const subscribed = endpoints.filter((endpoint) => subscribes(endpoint.events, event.type as WebhookEventType)).map((endpoint) => endpoint.id);
  if (subscribed.length === 0) return { id: event.id, deliveries: 0 };
  const now = ctx.deps.clock.now();
  await ctx.deps.db.transaction(ctx.db, async (tx) => {
    await webhooks.lockEvent(tx, ctx.tenant.id, event.id);
    const queued = new Set(await webhooks.endpointsWithPending(tx, event.id, subscribed));
    const fresh = subscribed.filter((endpointId) => !queued.has(endpointId));
    if (fresh.length > 0) {
      const deliveries = fresh.map((endpointId) => ({ id: ctx.deps.random.uuid(), endpointId }));
      await webhooks.queueDeliveries(tx, { tenantId: ctx.tenant.id, eventId: event.id }, deliveries, now);
    }
    if (queued.size > 0) await webhooks.bringForwardRetries(tx, event.id, [...queued], now);
  });
  ctx.deps.webhooks.nudge();
  return { id: event.id, deliveries: subscribed.length };
}
