import type { ResolvedSimulationOptions, SimulationLogger } from "./options.js";

/** A callback's kind, as its API declares it (apis.ts's CallbackKind). */
type CallbackKind = string;

/** One callback sent, and how its receiver answered (status) or why it did not (error). */
export interface LoggedCallback {
  at: string;
  kind: CallbackKind;
  url: string;
  body: unknown;
  status: number | null;
  error: string | null;
}

/** A callback's exchange: the receiver's status and body (parsed JSON, else text), or why there was none. */
export interface Exchange {
  status: number | null;
  body: unknown;
  error: string | null;
}

export interface CallbackSender {
  /** Runs `task` after the configured callback delay (cancelled when the simulation closes). */
  later(task: () => Promise<void> | void): void;
  /** POSTs `body` to `url` exactly as given. Failures are logged, never retried (Daraja does not retry). */
  deliver(kind: CallbackKind, url: string, body: unknown): Promise<void>;
  /** POSTs `body` and reads the answer (C2B validation, whose answer decides): nothing when closed. */
  exchange(kind: CallbackKind, url: string, body: unknown, timeoutMs: number): Promise<Exchange>;
  close(): void;
}

export interface CallbackSenderOptions {
  logger: SimulationLogger | null;
  /** Told of every callback once its exchange is over (the HTTP simulator's GET /sim/requests). */
  onCallback: ((callback: LoggedCallback) => void) | null;
}

// Callback URLs carry the receiver's secret (`?token=`); keep it out of log lines.
const withoutQuery = (url: string) => url.split("?")[0];

function parsed(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

export function createCallbackSender(
  options: ResolvedSimulationOptions,
  sender: CallbackSenderOptions,
): CallbackSender {
  const timers = new Set<NodeJS.Timeout>();
  const inFlight = new Set<AbortController>();
  const { logger: log } = sender;
  let closed = false;

  async function exchange(
    kind: CallbackKind,
    url: string,
    body: unknown,
    timeoutMs: number,
    read: boolean,
  ): Promise<Exchange> {
    if (closed) return { status: null, body: null, error: "the simulation is closed" };
    const controller = new AbortController();
    inFlight.add(controller);
    const timeout = setTimeout(() => controller.abort(), timeoutMs);
    const entry: LoggedCallback = { at: options.now().toISOString(), kind, url, body, status: null, error: null };
    try {
      const response = await options.fetch(url, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
        signal: controller.signal,
      });
      entry.status = response.status;
      const answer = read
        ? parsed(await response.text())
        : await response.arrayBuffer().then(
            () => null,
            () => null,
          );
      if (!response.ok && !read)
        log?.warn(
          { kind, url: withoutQuery(url), status: response.status },
          "callback receiver answered with an error",
        );
      return { status: response.status, body: answer, error: null };
    } catch (error) {
      entry.error =
        read && controller.signal.aborted ? "timed out" : error instanceof Error ? error.message : String(error);
      if (!read) log?.warn({ kind, url: withoutQuery(url), err: error }, "callback delivery failed (not retried)");
      return { status: null, body: null, error: entry.error };
    } finally {
      clearTimeout(timeout);
      inFlight.delete(controller);
      sender.onCallback?.(entry);
    }
  }

  return {
    later(task) {
      if (closed) return;
      const timer = setTimeout(() => {
        timers.delete(timer);
        Promise.resolve()
          .then(task)
          .catch((error: unknown) => log?.error({ err: error }, "simulated callback task failed"));
      }, options.callbackDelayMs);
      timers.add(timer);
    },

    async deliver(kind, url, body) {
      await exchange(kind, url, body, options.callbackTimeoutMs, false);
    },

    exchange: (kind, url, body, timeoutMs) => exchange(kind, url, body, timeoutMs, true),

    close() {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const controller of inFlight) controller.abort();
    },
  };
}
