/**
 * Graceful shutdown (SIGTERM from an orchestrator or a load balancer's drain):
 * 1. stop accepting: the listening socket closes at once, so the balancer's next attempt goes elsewhere;
 *    requests arriving on kept-alive connections answer 503 with `Connection: close`;
 * 2. event streams (payment-status subscriptions) end at once — their clients reconnect elsewhere;
 * 3. requests in flight (including Daraja callbacks) finish, up to the deadline less a margin;
 *    whatever is still open then is cut;
 * 4. the services stop: workers (mail outbox, payment reconciliation), Redis, database pools.
 * All of it within `timeoutMs` (10 s by default, below Kubernetes' 30 s grace period): a service that
 * does not stop in the time left rejects the shutdown with an error naming what was still stopping, so
 * neither a process nor a test waits on it for ever.
 */
import type { FastifyInstance } from "fastify";
import type { IncomingMessage, ServerResponse } from "node:http";

export interface ShutdownOptions {
  app: FastifyInstance;
  /** Stops the workers and closes the pools (Services.close). */
  stopServices: () => Promise<void>;
  /** What stopServices is waiting for right now (Services.stopping), named in the error if it overruns. */
  stopping?: () => string | undefined;
  logger: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void };
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
  const open = new Set<ServerResponse>();
  app.server.on("request", (_request: IncomingMessage, response: ServerResponse) => {
    open.add(response);
    response.once("close", () => open.delete(response));
  });

  let running: Promise<void> | undefined;
  return (reason) => {
    running ??= (async () => {
      const started = Date.now();
      logger.info({ reason, inFlight: open.size }, "shutting down: no new connections; finishing requests in flight");

      const closed = app.close();
      for (const response of open) {
        if (String(response.getHeader("content-type") ?? "").startsWith("text/event-stream")) response.destroy();
        else if (!response.headersSent) {
          // Answered, then closed: a kept-alive connection would otherwise hold the shutdown open.
          response.shouldKeepAlive = false;
          response.setHeader("Connection", "close");
        }
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

function withinDeadline(work: Promise<unknown>, ms: number, overrun: () => Error): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(overrun()), ms);
    timer.unref();
  });
  return Promise.race([work, deadline]).then(() => undefined).finally(() => clearTimeout(timer));
}
