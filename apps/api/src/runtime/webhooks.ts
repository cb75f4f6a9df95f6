/**
 * The webhook side of the composition root (docs/webhooks.md): the endpoint URL rules, the sender
 * (10 s time-out, no redirects, the address guard at connection time) and the delivery worker that
 * sends what settlements wrote to the outbox. Every instance runs one; SKIP LOCKED leases keep them
 * from sending one delivery twice at once.
 */
import { deliverDueWebhooks, type DeliveryReport, type Deps, type Logger, type WebhookDeps } from "@mteja/domain";
import { createWebhookSender, endpointUrlProblem } from "@mteja/webhooks";
import type { Settings } from "../settings.js";

export interface WebhooksRuntime {
  deps: WebhookDeps;
  /** Starts the background runs (deps are read when a run starts, after they are built). */
  start(): void;
  /** Claims and sends one batch now; for tests and tools. */
  runOnce(): Promise<DeliveryReport>;
  /** Stops the worker, waiting for the batch in flight. */
  close(): Promise<void>;
}

const batchSize = 20;
/** Due retries are looked for this often; a commit that wrote events nudges the worker sooner. */
const pollIntervalMs = 1_000;
/**
 * A nudge is answered this long after it: the nudges of a burst of settlements share one claim of due
 * deliveries. Claiming after each commit cost a callback storm a fifth of its CPU (docs/performance.md,
 * "Callback path, round four"); a webhook leaves at most this much later.
 */
const nudgeWindowMs = 20;

export function createWebhooksRuntime(settings: Settings, logger: Logger, getDeps: () => Deps): WebhooksRuntime {
  const allowPrivate = settings.NODE_ENV !== "production" || settings.WEBHOOK_ALLOW_PRIVATE_URLS;
  const sender = createWebhookSender({ allowPrivateAddresses: allowPrivate, timeoutMs: 10_000 });
  const options = { batchSize, leaseSeconds: 60, retrySchedule: settings.WEBHOOK_RETRY_SCHEDULE };

  let started = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | undefined;
  let again = false;
  let nudged = false;

  const runOnce = () => deliverDueWebhooks(getDeps(), sender, options);

  function schedule(delayMs: number): void {
    if (!started || stopped) return;
    clearTimeout(timer);
    timer = setTimeout(tick, delayMs);
  }

  function tick(): void {
    if (inFlight) {
      again = true;
      return;
    }
    inFlight = (async () => {
      do {
        again = false;
        nudged = false;
        try {
          const report = await runOnce();
          // A full batch: more are probably due.
          if (report.claimed === batchSize) again = true;
        } catch (error) {
          logger.error({ err: error }, "webhook delivery run failed; retrying on the next run");
        }
      } while (again && !stopped);
    })().finally(() => {
      inFlight = undefined;
      schedule(nudged ? nudgeWindowMs : pollIntervalMs);
    });
  }

  return {
    deps: {
      urlProblem: (url) => endpointUrlProblem(url, { publicHttpsOnly: !allowPrivate }),
      nudge: () => {
        if (nudged) return;
        nudged = true;
        // A run in flight schedules the next one when it ends.
        if (!inFlight) schedule(nudgeWindowMs);
      },
    },
    start() {
      started = true;
      schedule(0);
    },
    runOnce,
    async close() {
      stopped = true;
      clearTimeout(timer);
      await inFlight;
    },
  };
}
