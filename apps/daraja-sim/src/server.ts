import Fastify from "fastify";
import type { FastifyInstance } from "fastify";
import { createDarajaSimulation, createMemoryStore } from "@mteja/simulated-daraja";
import { sendDarajaError } from "./http.js";
import type { DarajaSimulatorOptions } from "./options.js";
import { ACCOUNT_BALANCE_PATH, registerAccountBalanceRoute } from "./routes/account-balance.js";
import { registerB2cRoutes } from "./routes/b2c.js";
import { registerC2bRoutes } from "./routes/c2b.js";
import { DYNAMIC_QR_PATH, PULL_QUERY_PATH, PULL_REGISTER_PATH, registerPullAndQrRoutes } from "./routes/pull-qr.js";
import { registerControlRoutes } from "./routes/control.js";
import { registerOAuthRoute } from "./routes/oauth.js";
import { registerStkRoutes } from "./routes/stk.js";
import { registerReversalRoute } from "./routes/reversal.js";
import { registerTransactionStatusRoute } from "./routes/transaction-status.js";
import { createServerState, pushBounded, takeQueuedOutcome } from "./state.js";
import { registerSimScripts } from "./scripts.js";

const KNOWN_PATHS = new Set([
  "/oauth/v1/generate",
  "/mpesa/stkpush/v1/processrequest",
  "/mpesa/stkpushquery/v1/query",
  "/mpesa/b2c/v1/paymentrequest",
  "/mpesa/b2c/v3/paymentrequest",
  "/mpesa/transactionstatus/v1/query",
  "/mpesa/reversal/v1/request",
  ACCOUNT_BALANCE_PATH,
  "/mpesa/c2b/v1/registerurl",
  "/mpesa/c2b/v2/registerurl",
  PULL_REGISTER_PATH,
  PULL_QUERY_PATH,
  DYNAMIC_QR_PATH,
  "/sim/c2b/pay",
  "/sim/qr/scan",
  "/sim/next-outcome",
  "/sim/requests",
  "/sim/reset",
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
  registerStkRoutes(app, simulation);
  registerB2cRoutes(app, simulation);
  registerTransactionStatusRoute(app, simulation);
  registerReversalRoute(app, simulation);
  registerAccountBalanceRoute(app, simulation);
  registerControlRoutes(app, simulation, state);
  registerC2bRoutes(app, simulation);
  registerPullAndQrRoutes(app, simulation);
  return app;
}
