/** Starts the service: settings → services → server, and stops it cleanly on SIGTERM/SIGINT. */
import { availableParallelism } from "node:os";
import pino from "pino";
import { buildServer, loggerOptions } from "./server.js";
import { createMetrics } from "./http/metrics.js";
import { createServices } from "./runtime/services.js";
import { oneCoreGcHint } from "./runtime/one-core-gc.js";
import { listenNaming } from "./runtime/port-taken.js";
import { productionWarnings } from "./runtime/production-warnings.js";
import { assertStartPortsFree } from "./runtime/start-ports.js";
import { createShutdown } from "./runtime/shutdown.js";
import { readSettings, SettingsError } from "./settings.js";

async function main(): Promise<void> {
  let settings;
  try {
    settings = readSettings();
  } catch (error) {
    if (error instanceof SettingsError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  const logger = pino(loggerOptions(settings) as pino.LoggerOptions);
  for (const warning of productionWarnings(settings)) logger.warn({ setting: warning.setting }, `unsafe in production: ${warning.message}`);
  const gcHint = oneCoreGcHint(availableParallelism(), process.execArgv);
  if (gcHint) logger.info({ cores: 1 }, gcHint);
  // Owned here, not by prom-client's global registry; Daraja calls report into it too (metrics.instrumentDarajaFetch).
  const metrics = createMetrics();
  let services, app;
  try {
    await assertStartPortsFree(settings);
    services = await createServices(settings, logger, { darajaFetch: metrics.instrumentDarajaFetch(), events: metrics });
    const server = await buildServer({
      settings,
      deps: services.deps,
      loggerInstance: logger,
      metrics,
      rateLimitStore: services.rateLimitStore,
      statusListener: services.statusListener,
      darajaBaseUrl: services.payments.darajaBaseUrl,
      captchaToken: services.captcha.dev?.issueToken,
    });
    app = server;
    const { PORT: port, HOST: host } = settings;
    await listenNaming("PORT", host, port, () => server.listen({ port, host }));
  } catch (error) {
    // A start that fails (database or Redis unreachable, port taken…) says why in the JSON log too.
    logger.fatal({ err: error }, "start failed");
    await services?.close().catch(() => undefined);
    process.exit(1);
  }
  logger.info({ database: services.deps.db.kind, url: `http://localhost:${settings.PORT}` }, "Mteja is listening");
  if (services.deps.config.adminApiKeyLoopbackOnly) {
    logger.info({ devAdminApiKey: services.deps.config.adminApiKey }, "dev start: this admin API key answers local requests only (loopback, Host localhost, 127.0.0.1 or [::1]; set ADMIN_API_KEY to choose your own)");
  }

  // Drain (/readyz 503 while still serving), stop accepting, end event streams with a reconnect hint, finish
  // requests in flight (callbacks too), then stop the workers and close the pools (runtime/shutdown.ts);
  // the timer is the backstop if anything hangs.
  const drainDelayMs = settings.SHUTDOWN_DRAIN_MS;
  const shutdown = createShutdown({
    app,
    stopServices: () => services.close(),
    stopping: () => services.stopping(),
    logger,
    drainDelayMs,
    timeoutMs: 9_000,
  });
  const stop = (signal: string) => {
    const timer = setTimeout(() => {
      logger.error("shutdown took longer than 10 s after the drain; exiting");
      process.exit(1);
    }, drainDelayMs + 10_000);
    timer.unref();
    shutdown(signal).then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
