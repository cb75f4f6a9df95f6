/** Starts the service: settings → services → server, and stops it cleanly on SIGTERM/SIGINT. */
import pino from "pino";
import { buildServer, loggerOptions } from "./server.js";
import { createServices } from "./runtime/services.js";
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
  const services = await createServices(settings, logger);
  const app = await buildServer({ settings, deps: services.deps, loggerInstance: logger });
  await app.listen({ port: settings.PORT, host: settings.HOST });
  logger.info({ database: services.deps.db.kind, url: `http://localhost:${settings.PORT}` }, "Mteja is listening");

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down");
    const timer = setTimeout(() => {
      logger.error("shutdown took longer than 10 s; exiting");
      process.exit(1);
    }, 10_000);
    timer.unref();
    await app.close();
    await services.close();
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
