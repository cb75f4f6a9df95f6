import Fastify from "fastify";
import type { FastifyInstance } from "fastify";
import { createCallbackSender } from "./callback-sender.js";
import { sendDarajaError } from "./http.js";
import { resolveOptions } from "./options.js";
import type { DarajaSimulatorOptions } from "./options.js";
import { registerB2cRoutes } from "./routes/b2c.js";
import { registerC2bRoutes } from "./routes/c2b.js";
import { registerControlRoutes } from "./routes/control.js";
import { registerOAuthRoute } from "./routes/oauth.js";
import { registerStkRoutes } from "./routes/stk.js";
import { registerReversalRoute } from "./routes/reversal.js";
import { registerTransactionStatusRoute } from "./routes/transaction-status.js";
import { createSimulatorState, pushBounded } from "./state.js";
import { registerSimScripts } from "./scripts.js";

const KNOWN_PATHS = new Set([
  "/oauth/v1/generate",
  "/mpesa/stkpush/v1/processrequest",
  "/mpesa/stkpushquery/v1/query",
  "/mpesa/b2c/v1/paymentrequest",
  "/mpesa/b2c/v3/paymentrequest",
  "/mpesa/transactionstatus/v1/query",
  "/mpesa/reversal/v1/request",
  "/mpesa/c2b/v1/registerurl",
  "/mpesa/c2b/v2/registerurl",
  "/sim/c2b/pay",
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

/** A Daraja look-alike on Fastify: same paths, fields, envelopes and callbacks. Call `listen` to serve it. */
export function buildDarajaSimulator(options: DarajaSimulatorOptions = {}): FastifyInstance {
  const resolved = resolveOptions(options);
  const state = createSimulatorState();
  const app = Fastify({ logger: options.logger ?? false, forceCloseConnections: true });

  // Bodies are parsed per route, as Daraja does: a missing Content-Type is a Daraja error, not a 415.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string" }, (_request, body, done) => done(null, body));

  const callbacks = createCallbackSender(resolved, state, app.log);
  app.addHook("onClose", async () => callbacks.close());

  app.addHook("onResponse", async (request, reply) => {
    const path = request.url.split("?")[0] ?? request.url;
    if (path.startsWith("/sim/")) return;
    pushBounded(
      state.requests,
      { at: resolved.now().toISOString(), method: request.method, path, status: reply.statusCode, body: logged(request.body) },
      resolved.logLimit,
    );
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

  if (options.scripts) registerSimScripts(app, options.scripts);

  registerOAuthRoute(app, resolved, state);
  registerStkRoutes(app, resolved, state, callbacks);
  registerB2cRoutes(app, resolved, state, callbacks);
  registerTransactionStatusRoute(app, resolved, state, callbacks);
  registerReversalRoute(app, resolved, state, callbacks);
  registerControlRoutes(app, state);
  registerC2bRoutes(app, resolved, state);
  return app;
}
