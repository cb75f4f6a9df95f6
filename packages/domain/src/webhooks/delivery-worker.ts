/**
 * The delivery worker's sends (docs/webhooks.md#how-delivery-works): claims the due deliveries this
 * instance may start now — fairly across tenants, as many as it has free slots, a tenant and an endpoint
 * at most their share of what is in flight (@mteja/db's webhooks.claimDueDeliveries) — and leases them
 * for WEBHOOK_LEASE_SECONDS, renewed while each is being sent (other instances skip them; a crashed
 * instance's come back when their lease ends: docs/deployment.md#leases-and-crashed-instances), so
 * several instances never send one delivery at once; signs each with the endpoint's secrets; records every
 * attempt, the retry, and the endpoint's health (an endpoint failing for WEBHOOK_DISABLE_AFTER_SECONDS
 * is disabled).
 *
 * The sends are not awaited together: each frees its slot when it ends, so a shop whose endpoints hang
 * holds its own share of the slots for the time-out, and nobody else's.
 */
import { leases, webhooks } from "@mteja/db";
import { createLeaseKeeper, type InFlightLedger, type LeaseKeeper } from "@mteja/shared";
import { signatureHeader, type WebhookRequest, type WebhookResponse } from "@mteja/webhooks";
import type { WebhookPorts } from "./ports.js";
import { signingSecrets } from "./endpoint-secrets.js";
import { retryDelaySeconds } from "./retry-schedule.js";

export interface WebhookPoster {
  send(request: WebhookRequest): Promise<WebhookResponse>;
}

export interface DeliveryOptions {
  /** Deliveries in flight on this instance at most (WEBHOOK_CONCURRENCY). */
  concurrency: number;
  /** Of which one tenant's at most (WEBHOOK_TENANT_CONCURRENCY). */
  perTenant: number;
  /** Of which one endpoint's at most. */
  perEndpoint: number;
  /**
   * How long a claim keeps a delivery from other instances (WEBHOOK_LEASE_SECONDS): renewed every third
   * of it while the delivery is being sent, so it may be shorter than a send's time-out (10 s).
   */
  leaseSeconds: number;
  /** Seconds before each retry (retry-schedule.ts). */
  retrySchedule: readonly number[];
  /** An endpoint whose every attempt has failed for this long is disabled (WEBHOOK_DISABLE_AFTER_SECONDS). */
  disableAfterSeconds: number;
}

/** A delivery per endpoint in flight at most twice on an instance (docs/webhooks.md#fairness). */
export const deliveriesPerEndpoint = 2;

/** `lost`: its lease was lost while it was being sent (the database was away); another instance sends it. */
export type DeliveryResult = "delivered" | "retrying" | "failed" | "dropped" | "lost";

/** Keeps the leases of the deliveries this instance is sending (@mteja/shared's lease keeper). */
export function createDeliveryLeases(
  getDeps: () => WebhookPorts,
  options: DeliveryOptions,
  onError: (error: unknown) => void,
): LeaseKeeper {
  return createLeaseKeeper({
    leaseMs: options.leaseSeconds * 1000,
    now: () => getDeps().clock.now(),
    renew: (held, until) => leases.renew(getDeps().db.unscoped("worker"), "webhook_deliveries", held, until),
    onError,
  });
}

/**
 * Claims what this instance may start now and starts sending it, counting each send in `inFlight`
 * and keeping its lease in `held` until it ends. Answers the sends (each resolves with its result;
 * rejects only when its attempt could not be recorded, and then the lease runs out and the delivery is
 * tried again).
 */
export async function startDueDeliveries(
  deps: WebhookPorts,
  poster: WebhookPoster,
  options: DeliveryOptions,
  inFlight: InFlightLedger,
  held: LeaseKeeper,
): Promise<Promise<DeliveryResult>[]> {
  const free = options.concurrency - inFlight.size;
  if (free <= 0) return [];
  const now = deps.clock.now();
  const leaseMs = options.leaseSeconds * 1000;
  const claimed = await webhooks.claimDueDeliveries(deps.db.unscoped("worker"), {
    now,
    leaseMs,
    limit: free,
    perTenant: options.perTenant,
    perEndpoint: options.perEndpoint,
    inFlight,
  });
  // The claim leased each delivery until then.
  const leaseEnd = new Date(now.getTime() + leaseMs);
  return claimed.map((delivery) => {
    const slot = { tenantId: delivery.tenant_id, endpointId: delivery.endpoint_id };
    inFlight.add(slot);
    const lost = new AbortController();
    held.hold(delivery.id, leaseEnd, () => lost.abort());
    return deliverOne(deps, poster, options, delivery, lost.signal).finally(() => {
      held.release(delivery.id);
      inFlight.remove(slot);
    });
  });
}

async function deliverOne(
  deps: WebhookPorts,
  poster: WebhookPoster,
  options: DeliveryOptions,
  delivery: webhooks.ClaimedDelivery,
  leaseLost: AbortSignal,
): Promise<DeliveryResult> {
  const db = deps.db.unscoped("worker");
  const { endpoint, event } = delivery;
  if (leaseLost.aborted) return "lost";
  if (!endpoint || !event || endpoint.deletedAt || !endpoint.enabled) {
    // A deleted or disabled endpoint is owed nothing more.
    await webhooks.dropDelivery(db, delivery.id, deps.clock.now());
    return "dropped";
  }
  const attemptedAt = deps.clock.now();
  const timestamp = Math.floor(attemptedAt.getTime() / 1000);
  const response = await poster.send({
    url: endpoint.url,
    body: event.body,
    signal: leaseLost,
    headers: {
      "content-type": "application/json",
      "mteja-event-id": event.id,
      "mteja-event-type": event.type,
      "mteja-signature": signatureHeader(signingSecrets(endpoint, deps.cipher, attemptedAt), timestamp, event.body),
    },
  });
  if (leaseLost.aborted) {
    // Not recorded: the delivery may be another instance's by now, and its record is the one that counts.
    const fields = { eventId: event.id, endpointId: endpoint.id };
    deps.logger.warn(fields, "webhook delivery's lease lost while sending: left to the instance that claims it");
    return "lost";
  }
  const attempts = delivery.attempts + 1;
  const finishedAt = deps.clock.now();
  const delay = response.acknowledged ? undefined : retryDelaySeconds(options.retrySchedule, attempts);
  const result: DeliveryResult = response.acknowledged ? "delivered" : delay === undefined ? "failed" : "retrying";
  const { endpointDisabledFailingSince } = await webhooks.recordAttempt(db, {
    deliveryId: delivery.id,
    tenantId: event.tenantId,
    eventId: event.id,
    endpointId: endpoint.id,
    attemptedAt,
    finishedAt,
    statusCode: response.statusCode,
    error: response.error?.slice(0, 500) ?? null,
    acknowledged: response.acknowledged,
    attempts,
    next: result === "retrying" ? { status: "pending", nextAttemptAt: new Date(finishedAt.getTime() + delay! * 1000) } : { status: result },
    disableIfFailingSince: new Date(attemptedAt.getTime() - options.disableAfterSeconds * 1000),
  });
  if (!response.acknowledged) {
    deps.logger.warn({ eventId: event.id, endpointId: endpoint.id, attempts, statusCode: response.statusCode, error: response.error, result }, "webhook delivery not acknowledged");
  }
  if (endpointDisabledFailingSince) {
    // The host only: a URL's path or query may carry the shop's own secret.
    deps.logger.warn(
      { endpointId: endpoint.id, tenantId: endpoint.tenantId, host: hostOf(endpoint.url), failingSince: endpointDisabledFailingSince.toISOString(), disableAfterSeconds: options.disableAfterSeconds },
      "webhook endpoint disabled: every delivery to it has failed for WEBHOOK_DISABLE_AFTER_SECONDS; the shop enables it again with PATCH",
    );
    return result === "retrying" ? "dropped" : result;
  }
  return result;
}

function hostOf(url: string): string | null {
  return URL.canParse(url) ? new URL(url).host : null;
}
