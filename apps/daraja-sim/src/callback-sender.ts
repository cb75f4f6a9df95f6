import type { FastifyBaseLogger } from "fastify";
import type { ResolvedSimulatorOptions } from "./options.js";
import { pushBounded } from "./state.js";
import type { CallbackKind, SimulatorState } from "./state.js";

export interface CallbackSender {
  /** Runs `task` after the configured callback delay (cancelled when the simulator closes). */
  later(task: () => Promise<void> | void): void;
  /** POSTs `body` to `url` exactly as given. Failures are logged, never retried (Daraja does not retry). */
  deliver(kind: CallbackKind, url: string, body: unknown): Promise<void>;
  close(): void;
}

// Callback URLs carry the receiver's secret (`?token=`); keep it out of log lines.
const withoutQuery = (url: string) => url.split("?")[0];

export function createCallbackSender(options: ResolvedSimulatorOptions, state: SimulatorState, log: FastifyBaseLogger): CallbackSender {
  const timers = new Set<NodeJS.Timeout>();
  const inFlight = new Set<AbortController>();
  let closed = false;

  return {
    later(task) {
      if (closed) return;
      const timer = setTimeout(() => {
        timers.delete(timer);
        Promise.resolve()
          .then(task)
          .catch((error: unknown) => log.error({ err: error }, "simulated callback task failed"));
      }, options.callbackDelayMs);
      timers.add(timer);
    },

    async deliver(kind, url, body) {
      if (closed) return;
      const controller = new AbortController();
      inFlight.add(controller);
      const timeout = setTimeout(() => controller.abort(), options.callbackTimeoutMs);
      const entry = { at: options.now().toISOString(), kind, url, body, status: null as number | null, error: null as string | null };
      try {
        const response = await options.fetch(url, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify(body),
          signal: controller.signal,
        });
        entry.status = response.status;
        await response.arrayBuffer().catch(() => undefined);
        if (!response.ok) log.warn({ kind, url: withoutQuery(url), status: response.status }, "callback receiver answered with an error");
      } catch (error) {
        entry.error = error instanceof Error ? error.message : String(error);
        log.warn({ kind, url: withoutQuery(url), err: error }, "callback delivery failed (not retried)");
      } finally {
        clearTimeout(timeout);
        inFlight.delete(controller);
        pushBounded(state.callbacks, entry, options.logLimit);
      }
    },

    close() {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const controller of inFlight) controller.abort();
    },
  };
}
