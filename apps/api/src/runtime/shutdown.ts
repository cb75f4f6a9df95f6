/**
 * Graceful shutdown (SIGTERM from an orchestrator or a deploy draining the instance;
 * docs/operations.md#draining):
 * 0. drain: `/readyz` answers 503 at once and every answer says `Connection: close`, while the instance
 *    goes on serving for `drainDelayMs` — the time a balancer's health checks take to stop sending;
 * 1. stop accepting: the listening socket closes, so the balancer's next attempt goes elsewhere;
 *    requests arriving on kept-alive connections answer 503 with `Connection: close`;
 * 2. event streams (payment-status subscriptions) end at once with a reconnect hint
 *    (http/subscription-hint.ts) — their clients reconnect elsewhere;
 * 3. requests in flight (including Daraja callbacks) finish, up to the deadline less a margin;
 *    whatever is still open then is cut;
 * 4. the services stop: workers (each after the work it holds), Redis, database pools.
 * Steps 1-4 within `timeoutMs` (10 s by default, below Kubernetes' 30 s grace period with the drain's
 * few seconds): a service that does not stop in the time left rejects the shutdown with an error naming
 * what was still stopping, so neither a process nor a test waits on it for ever.
 */
import type { FastifyInstance } from "fastify";
import type { IncomingMessage, ServerResponse } from "node:http";
import { subscriptionClosingHint } from "../http/subscription-hint.js";

export interface ShutdownOptions {
  app: FastifyInstance;
  /** Stops the workers and closes the pools (Services.close). */
  stopServices: () => Promise<void>;
  /** What stopServices is waiting for right now (Services.stopping), named in the error if it overruns. */
  stopping?: () => string | undefined;
  logger: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void };
  /** How long the instance goes on serving, draining, before its port closes (SHUTDOWN_DRAIN_MS); default 0. */
  drainDelayMs?: number;
  /** Time for steps 1-4, after the drain. */
  timeoutMs?: number;
  /** Time kept for stopping the services after the HTTP side is closed. */
  servicesMarginMs?: number;
}

export type Shutdown = (reason: string) => Promise<void>;

/** Call after `listen()`; the returned function is idempotent (a second signal joins the first). */
export function createShutdown(options: ShutdownOptions): Shutdown {
  const { app, logger } = options;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const marginMs = options.servicesMarginMs ?? 2_000;
  const drainDelayMs = options.drainDelayMs ?? 0;
  const open = new Set<ServerResponse>();
  app.server.on("request", (_request: IncomingMessage, response: ServerResponse) => {
    open.add(response);
    response.once("close", () => open.delete(response));
    if (app.drain.draining) closeAfterAnswer(response);
  });

  let running: Promise<void> | undefined;
  return (reason) => {
    running ??= (async () => {
      app.drain.begin();
      for (const response of open) closeAfterAnswer(response);
      if (drainDelayMs > 0) {
        const message = "draining: /readyz answers 503; serving until the balancer stops sending";
        logger.info({ reason, drainMs: drainDelayMs }, message);
        await new Promise((resolve) => setTimeout(resolve, drainDelayMs));
      }
      const started = Date.now();
      logger.info({ reason, inFlight: open.size }, "shutting down: no new connections; finishing requests in flight");

      const closed = app.close();
      for (const response of open) {
        if (isEventStream(response)) endEventStream(response);
        else closeAfterAnswer(response);
      }

      const httpDeadline = Math.max(timeoutMs - marginMs, 0);
      let timer: NodeJS.Timeout | undefined;
      const cut = new Promise<"cut">((resolve) => {
        timer = setTimeout(() => resolve("cut"), httpDeadline);
        timer.unref();
      });
      if ((await Promise.race([closed.then(() => "closed" as const), cut])) === "cut") {
        logger.warn({ open: open.size }, "requests still open at the shutdown deadline: closing their connections");
        app.server.closeAllConnections();
        await withinDeadline(closed, marginMs / 2, () => new Error(`shutdown deadline passed while closing the HTTP server (${open.size} responses still open)`));
      }
      clearTimeout(timer);

      await withinDeadline(options.stopServices(), Math.max(timeoutMs - (Date.now() - started), marginMs), () => {
        const waitingFor = options.stopping?.() ?? "the services";
        return new Error(`shutdown deadline passed while stopping ${waitingFor}`);
      });
      logger.info({ reason, ms: Date.now() - started }, "shut down");
    })();
    return running;
  };
}

/** Answered, then closed: a kept-alive connection would otherwise hold the shutdown open. */
function closeAfterAnswer(response: ServerResponse): void {
  if (response.headersSent || isEventStream(response)) return;
  response.shouldKeepAlive = false;
  response.setHeader("Connection", "close");
}

function isEventStream(response: ServerResponse): boolean {
  return String(response.getHeader("content-type") ?? "").startsWith("text/event-stream");
}

/**
 * The hint, then the connection ends (once the hint is written, so it is not lost). tRPC writes the
 * lines of one event in one turn of the event loop, so the hint, written from a signal's turn, lands
 * between two events.
 */
function endEventStream(response: ServerResponse): void {
  if (response.destroyed) return;
  response.write(subscriptionClosingHint(), () => response.destroy());
}

function withinDeadline(work: Promise<unknown>, ms: number, overrun: () => Error): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(overrun()), ms);
    timer.unref();
  });
  return Promise.race([work, deadline]).then(() => undefined).finally(() => clearTimeout(timer));
}
