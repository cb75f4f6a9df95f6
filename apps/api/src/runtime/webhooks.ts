/**
 * The webhook side of the composition root (docs/webhooks.md): the endpoint URL rules, the sender
 * (10 s time-out, no redirects, the address guard at connection time) and the delivery worker that
 * sends what settlements wrote to the outbox. Every instance runs one; SKIP LOCKED leases, renewed while
 * a delivery is being sent, keep them from sending one delivery twice at once, and bring back within
 * WEBHOOK_LEASE_SECONDS what a crashed instance was sending (docs/deployment.md#leases-and-crashed-instances).
 *
 * The worker keeps up to WEBHOOK_CONCURRENCY sends in flight and claims again whenever one ends, so
 * a send that hangs holds one slot (of its tenant's share) until its time-out, never the whole worker.
 */
import {
  createDeliveryLeases,
  deliveriesPerEndpoint,
  startDueDeliveries,
  type DeliveryOptions,
  type DeliveryResult,
  type WebhookPorts,
  type Logger,
  type WebhookDeps,
} from "@mteja/domain";
import { createInFlightLedger } from "@mteja/shared";
import { createWebhookSender, endpointUrlProblem } from "@mteja/webhooks";
import type { Settings } from "../settings.js";

export interface WebhooksRuntime {
  deps: WebhookDeps;
  /** Starts the background runs (deps are read when a run starts, after they are built). */
  start(): void;
  /** Claims what may start now and waits for those sends; for tests and tools. */
  runOnce(): Promise<DeliveryResult[]>;
  /** Stops the worker, waiting for the sends in flight. */
  close(): Promise<void>;
}

/** Due retries are looked for this often; a commit that wrote events, or a send that ended, asks sooner. */
const pollIntervalMs = 1_000;
/**
 * A commit's nudge is answered this long after it: the nudges of a burst of settlements share one claim of
 * due deliveries. A claim after each commit would cost a callback storm about a fifth of its CPU
 * (docs/performance.md, "Callback ingestion"); a webhook leaves at most this much later.
 */
const nudgeWindowMs = 20;
/**
 * A send that ends asks for a claim at once (the sends ending in one turn of the event loop share it): a
 * backlog keeps every slot busy, where waiting out the window left each slot idle for most of it
 * (bench/webhooks.mjs against a hand-written claim → POST → mark loop, docs/performance.md).
 */
const slotFreedDelayMs = 0;

export function deliveryOptionsOf(settings: Settings): DeliveryOptions {
  return {
    concurrency: settings.WEBHOOK_CONCURRENCY,
    perTenant: settings.WEBHOOK_TENANT_CONCURRENCY,
    perEndpoint: deliveriesPerEndpoint,
    leaseSeconds: settings.WEBHOOK_LEASE_SECONDS,
    retrySchedule: settings.WEBHOOK_RETRY_SCHEDULE,
    disableAfterSeconds: settings.WEBHOOK_DISABLE_AFTER_SECONDS,
  };
}

export function createWebhooksRuntime(settings: Settings, logger: Logger, getDeps: () => WebhookPorts): WebhooksRuntime {
  const allowPrivate = settings.NODE_ENV !== "production" || settings.WEBHOOK_ALLOW_PRIVATE_URLS;
  const sender = createWebhookSender({ allowPrivateAddresses: allowPrivate, timeoutMs: 10_000 });
  const options = deliveryOptionsOf(settings);
  const inFlight = createInFlightLedger();
  const leases = createDeliveryLeases(getDeps, options, (error) =>
    logger.warn({ err: error }, "webhook delivery leases not renewed; sends are given up before their lease ends"),
  );
  const sending = new Set<Promise<unknown>>();

  let started = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let claiming: Promise<void> | undefined;
  let again = false;
  // The soonest a nudge since the last claim asked for one, if any did.
  let nudgedWithin: number | undefined;

  const claim = () => startDueDeliveries(getDeps(), sender, options, inFlight, leases);

  /** Follows a send to its end: a failure to record it is logged (its lease runs out and it is tried again), and its slot asks for a claim. */
  function follow(send: Promise<DeliveryResult>): void {
    const followed = send
      .catch((error: unknown) => logger.error({ err: error }, "webhook delivery not recorded; it is sent again once its lease runs out"))
      .finally(() => {
        sending.delete(followed);
        nudge(slotFreedDelayMs);
      });
    sending.add(followed);
  }

  function schedule(delayMs: number): void {
    if (!started || stopped) return;
    clearTimeout(timer);
    timer = setTimeout(tick, delayMs);
  }

  function tick(): void {
    if (claiming) {
      again = true;
      return;
    }
    claiming = (async () => {
      do {
        again = false;
        nudgedWithin = undefined;
        try {
          for (const send of await claim()) follow(send);
        } catch (error) {
          logger.error({ err: error }, "webhook delivery run failed; retrying on the next run");
        }
      } while (again && !stopped);
    })().finally(() => {
      claiming = undefined;
      schedule(nudgedWithin ?? pollIntervalMs);
    });
  }

  function nudge(withinMs = nudgeWindowMs): void {
    if (stopped || (nudgedWithin !== undefined && nudgedWithin <= withinMs)) return;
    nudgedWithin = withinMs;
    // A claim in flight schedules the next one when it ends.
    if (!claiming) schedule(withinMs);
  }

  return {
    deps: {
      urlProblem: (url) => endpointUrlProblem(url, { publicHttpsOnly: !allowPrivate }),
      nudge: () => nudge(),
    },
    start() {
      started = true;
      schedule(0);
    },
    async runOnce() {
      return Promise.all(await claim());
    },
    async close() {
      stopped = true;
      clearTimeout(timer);
      await claiming;
      await Promise.all(sending);
      leases.close();
      sender.close();
    },
  };
}
