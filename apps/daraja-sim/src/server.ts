import Fastify from "fastify";
import type { FastifyInstance } from "fastify";
import { createDarajaSimulation, createMemoryStore, OAUTH_PATH, SIMULATED_APIS } from "@mteja/simulated-daraja";
import { sendDarajaError } from "./http.js";
import type { DarajaSimulatorOptions } from "./options.js";
import { registerC2bPayRoute } from "./routes/c2b-pay.js";
import { registerControlRoutes } from "./routes/control.js";
import { registerDarajaRoutes } from "./routes/daraja.js";
import { registerOAuthRoute } from "./routes/oauth.js";
import { registerQrScanRoute } from "./routes/qr-scan.js";
import { createServerState, pushBounded, takeQueuedOutcome } from "./state.js";
import { registerSimScripts } from "./scripts.js";

const CONTROL_PATHS = ["/sim/c2b/pay", "/sim/qr/scan", "/sim/next-outcome", "/sim/requests", "/sim/reset"];

/** Every path it serves: a wrong method there is a 405, as Daraja answers. */
const KNOWN_PATHS = new Set([
  OAUTH_PATH,
  ...SIMULATED_APIS.flatMap((api) => api.endpoints.map(({ path }) => path)),
  ...CONTROL_PATHS,
]);

function logged(body: unknown): unknown {
  if (typeof body !== "string") return body ?? null;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return body;
  }
}

/**
 * A Daraja look-alike on Fastify: same paths, fields, envelopes and callbacks, served over the
 * simulation of @mteja/simulated-daraja (which decides and remembers everything), plus the /sim
 * control routes. Call `listen` to serve it.
 */
export function buildDarajaSimulator(options: DarajaSimulatorOptions = {}): FastifyInstance {
  const { logger = false, logLimit = 200, scripts, store = createMemoryStore(), ...settings } = options;
  const state = createServerState();
  const app = Fastify({ logger, forceCloseConnections: true });
  const now = settings.now ?? (() => new Date());
  const simulation = createDarajaSimulation(settings, {
    store,
    logger: app.log,
    onCallback: (callback) => pushBounded(state.callbacks, callback, logLimit),
    chooseOutcome: (api, phone, allowed) => takeQueuedOutcome(state, api, phone, allowed),
  });
  app.addHook("onClose", async () => simulation.close());

  // Bodies are parsed per route, as Daraja does: a missing Content-Type is a Daraja error, not a 415.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string" }, (_request, body, done) => done(null, body));

  app.addHook("onResponse", async (request, reply) => {
    const path = request.url.split("?")[0] ?? request.url;
    if (path.startsWith("/sim/")) return;
    const entry = {
      at: now().toISOString(),
      method: request.method,
      path,
      status: reply.statusCode,
      body: logged(request.body),
    };
    pushBounded(state.requests, entry, logLimit);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split("?")[0] ?? request.url;
    if (KNOWN_PATHS.has(path)) return sendDarajaError(reply, 405, "405.001", "Method Not Allowed");
    return sendDarajaError(reply, 404, "404.001.01", "Resource not found");
  });

  app.setErrorHandler((error: { statusCode?: number }, request, reply) => {
    const status = error.statusCode ?? 500;
    if (status >= 500) request.log.error({ err: error }, "simulator error");
    return status >= 500
      ? sendDarajaError(reply, 500, "500.003.1001", "Internal Server Error")
      : sendDarajaError(reply, status, "400.002.02", "Bad Request");
  });

  if (scripts) registerSimScripts(app, scripts);

  registerOAuthRoute(app, simulation);
  registerDarajaRoutes(app, simulation);
  registerControlRoutes(app, simulation, state);
  registerC2bPayRoute(app, simulation);
  registerQrScanRoute(app, simulation);
  return app;
}
