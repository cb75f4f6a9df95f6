/**
 * The delivery worker's run (docs/webhooks.md#how-delivery-works): claims due deliveries of every tenant with
 * FOR UPDATE SKIP LOCKED and leases them by pushing next_attempt_at past the send's time-out (the
 * reconciler's pattern, payments/kernel/leased-sweep.ts), so several instances never send one
 * delivery at once; signs each with the endpoint's secrets; records every attempt; schedules the retry.
 */
import { signatureHeader, type WebhookRequest, type WebhookResponse } from "@mteja/webhooks";
import type { Deps } from "../context.js";
import { signingSecrets } from "./endpoint-secrets.js";
import { retryDelaySeconds } from "./retry-schedule.js";

export interface WebhookPoster {
  send(request: WebhookRequest): Promise<WebhookResponse>;
}

export interface DeliveryOptions {
  batchSize: number;
  /** Longer than a send's time-out (10 s): a claimed delivery is not claimed again while it is being sent. */
  leaseSeconds: number;
  /** Seconds before each retry (retry-schedule.ts). */
  retrySchedule: readonly number[];
}

export interface DeliveryReport {
  claimed: number;
  delivered: number;
  retrying: number;
  failed: number;
  dropped: number;
}

interface ClaimedDelivery {
  id: string;
  event_id: string;
  endpoint_id: string;
  attempts: number;
}

async function claimDue(deps: Deps, options: DeliveryOptions, now: Date): Promise<ClaimedDelivery[]> {
  const leaseEnd = new Date(now.getTime() + options.leaseSeconds * 1000);
  return deps.db.unscoped.$queryRaw<ClaimedDelivery[]>`
    WITH due AS (
      SELECT id FROM webhook_deliveries
       WHERE status = 'pending' AND next_attempt_at <= ${now}
       ORDER BY next_attempt_at
       LIMIT ${options.batchSize}::int
         FOR UPDATE SKIP LOCKED
    )
    UPDATE webhook_deliveries d
       SET next_attempt_at = ${leaseEnd}
      FROM due
     WHERE d.id = due.id
    RETURNING d.id::text AS id, d.event_id, d.endpoint_id::text AS endpoint_id, d.attempts`;
}

export async function deliverDueWebhooks(deps: Deps, poster: WebhookPoster, options: DeliveryOptions): Promise<DeliveryReport> {
  const claimed = await claimDue(deps, options, deps.clock.now());
  const report: DeliveryReport = { claimed: claimed.length, delivered: 0, retrying: 0, failed: 0, dropped: 0 };
  await Promise.all(claimed.map(async (delivery) => (report[await deliverOne(deps, poster, options, delivery)] += 1)));
  return report;
}

type DeliveryResult = "delivered" | "retrying" | "failed" | "dropped";

async function deliverOne(deps: Deps, poster: WebhookPoster, options: DeliveryOptions, delivery: ClaimedDelivery): Promise<DeliveryResult> {
  const db = deps.db.unscoped;
  const [endpoint, event] = await Promise.all([
    db.webhookEndpoint.findUnique({ where: { id: delivery.endpoint_id } }),
    db.webhookEvent.findUnique({ where: { id: delivery.event_id } }),
  ]);
  if (!endpoint || !event || endpoint.deletedAt || !endpoint.enabled) {
    // A deleted or disabled endpoint is owed nothing more.
    await db.webhookDelivery.updateMany({ where: { id: delivery.id, status: "pending" }, data: { status: "dropped", finishedAt: deps.clock.now() } });
    return "dropped";
  }
  const attemptedAt = deps.clock.now();
  const timestamp = Math.floor(attemptedAt.getTime() / 1000);
  const response = await poster.send({
    url: endpoint.url,
    body: event.body,
    headers: {
      "content-type": "application/json",
      "mteja-event-id": event.id,
      "mteja-event-type": event.type,
      "mteja-signature": signatureHeader(signingSecrets(endpoint, deps.cipher, attemptedAt), timestamp, event.body),
    },
  });
  const attempts = delivery.attempts + 1;
  const finishedAt = deps.clock.now();
  const delay = response.acknowledged ? undefined : retryDelaySeconds(options.retrySchedule, attempts);
  const result: DeliveryResult = response.acknowledged ? "delivered" : delay === undefined ? "failed" : "retrying";
  await db.$transaction([
    db.webhookAttempt.create({
      data: { tenantId: event.tenantId, eventId: event.id, endpointId: endpoint.id, attemptedAt, statusCode: response.statusCode, error: response.error?.slice(0, 500) ?? null },
    }),
    db.webhookDelivery.updateMany({
      where: { id: delivery.id, status: "pending" },
      data:
        result === "retrying"
          ? { attempts, nextAttemptAt: new Date(finishedAt.getTime() + delay! * 1000) }
          : { attempts, status: result, finishedAt },
    }),
  ]);
  if (!response.acknowledged) {
    deps.logger.warn({ eventId: event.id, endpointId: endpoint.id, attempts, statusCode: response.statusCode, error: response.error, result }, "webhook delivery not acknowledged");
  }
  return result;
}
