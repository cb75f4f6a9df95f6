/**
 * buildServer(settings, services) → a Fastify instance with every transport mounted. main.ts and the
 * tests both call it; nothing here knows a business rule.
 */
import cookie from "@fastify/cookie";
import { appRouter, type Deps, type ErrorEnvelope } from "@mteja/domain";
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyServerOptions } from "fastify";
import { randomUUID } from "node:crypto";
import { installCors } from "./http/cors.js";
import { docsPlugin } from "./http/docs.js";
import { clientErrorResponse, envelopeFor, requestLocale } from "./http/errors.js";
import { installJsonBodyParser } from "./http/json-body.js";
import { createMetrics, installMetrics, type Metrics } from "./http/metrics.js";
import { installRequestScope, logSerializers, redactPaths } from "./http/request-log.js";
import { devOutboxRoutes } from "./http/dev-outbox.js";
import { defaultDemoDir, demoPlugin } from "./http/demo.js";
import { demoShopRoutes } from "./http/demo-shop.js";
import { darajaCallbackOpenApi, darajaCallbackPlugin } from "./http/daraja-callbacks.js";
import { smsCallbackPlugin } from "./http/sms-callbacks.js";
import { buildOpenApiDocument, createRestOperationMatcher, restMountPattern, restPlugin } from "./http/rest/index.js";
import { systemRoutes, type StatusListener } from "./http/system-routes.js";
import { trpcPlugin } from "./http/trpc.js";
import { createDrain, type Drain } from "./runtime/drain.js";
import type { RateLimitStore } from "./runtime/rate-limit-store.js";
import type { Settings } from "./settings.js";

declare module "fastify" {
  interface FastifyInstance {
    /** Whether the instance is draining (runtime/drain.ts): begun by the shutdown, read by /readyz. */
    drain: Drain;
  }
}

export interface BuildServerOptions {
  settings: Settings;
  deps: Deps;
  /** An existing pino logger (main.ts shares one with the services); otherwise one is made from the settings. */
  loggerInstance?: FastifyBaseLogger;
  logger?: FastifyServerOptions["logger"];
  /** The metrics registry (main.ts makes it first so the Daraja client can report into it); otherwise a new one. */
  metrics?: Metrics;
  /** The Redis of the abuse limits (REDIS_URL), reported by /readyz and /metrics. */
  rateLimitStore?: RateLimitStore | undefined;
  /** The connection listening for payment status notices (PostgreSQL), reported by /readyz and /metrics. */
  statusListener?: StatusListener | undefined;
  /** The Daraja the service calls (Services.payments.darajaBaseUrl), whose simulator the demo's phone pays through. */
  darajaBaseUrl?: string | undefined;
  /** The dev start's CAPTCHA stand-in (Services.captcha.dev): the demo's widget tokens come from it. */
  captchaToken?: (() => string) | undefined;
}

export function loggerOptions(settings: Settings): FastifyServerOptions["logger"] {
  return {
    level: settings.LOG_LEVEL,
    redact: {
      paths: redactPaths,
      censor: "[redacted]",
    },
    serializers: logSerializers,
  };
}

/**
 * TRUST_PROXY (docs/limits.md#client-address): unset/false (use the socket address), true (one proxy:
 * the same as 1), a hop count, or a comma-separated list of proxy addresses/CIDRs. `true` is never
 * Fastify's own `true`, which believes every X-Forwarded-For entry and so takes the leftmost, the one
 * the client wrote itself; one hop takes the rightmost, the address the proxy saw.
 */
export function parseTrustProxy(value: string | undefined): false | string[] | ((address: string, hop: number) => boolean) {
  if (value === undefined || value === "" || value === "false") return false;
  if (value === "true") return trustedHops(1);
  if (/^\d+$/.test(value)) return trustedHops(Number(value));
  return value.split(",").map((s) => s.trim()).filter(Boolean);
}

function trustedHops(hops: number): (address: string, hop: number) => boolean {
  return (_address, hop) => hop < hops;
}

/**
 * A 5xx is logged as an error, with its stack; SERVICE_UNAVAILABLE (the database is away: every request
 * meets it at once) as a warning with the reason only, so an outage does not bury the log in stacks.
 */
function logFailure(
  log: FastifyBaseLogger,
  envelope: ErrorEnvelope,
  fields: { err: unknown; path?: string | undefined },
  message: string,
): void {
  if (envelope.body.error.code === "SERVICE_UNAVAILABLE") {
    const { err, ...rest } = fields;
    log.warn({ ...rest, reason: err instanceof Error ? err.message : String(err) }, `${message}: database unavailable`);
  } else if (envelope.status >= 500) log.error(fields, message);
}

export async function buildServer(options: BuildServerOptions): Promise<FastifyInstance> {
  const { settings, deps } = options;
  const app: FastifyInstance = Fastify({
    ...(options.loggerInstance ? { loggerInstance: options.loggerInstance } : { logger: options.logger ?? loggerOptions(settings) }),
    bodyLimit: settings.BODY_LIMIT_BYTES,
    trustProxy: parseTrustProxy(settings.TRUST_PROXY),
    genReqId: (request) => {
      const incoming = request.headers["x-request-id"];
      return typeof incoming === "string" && /^[\w.-]{1,64}$/.test(incoming) ? incoming : randomUUID();
    },
    // maxParamLength: a tRPC batch names every procedure in one path segment (tRPC's Fastify adapter docs).
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 5000 },
    // Errors raised before a route is chosen (a URL that does not decode) get the envelope too,
    // and so do requests Node's HTTP parser refuses (URL or headers too large).
    frameworkErrors: (error, request, reply) => {
      const envelope = envelopeFor(error, requestLocale(request));
      void (reply as FastifyReply).code(envelope.status).send(envelope.body);
    },
    clientErrorHandler: (error, socket) => {
      if ((error as { code?: string }).code === "ECONNRESET" || socket.destroyed) return;
      if (socket.writable) socket.write(clientErrorResponse(error as { code?: string }));
      socket.destroy(error);
    },
  });

  installJsonBodyParser(app);
  const drain = createDrain();
  app.decorate("drain", drain);

  // Observability first: its hooks must see every route registered below.
  installRequestScope(app);
  const publicUrl = settings.PUBLIC_URL ?? settings.APP_URL;
  // Daraja's callbacks are plain routes (their bodies are Daraja's), documented by hand.
  const openApiDocument = buildOpenApiDocument(appRouter, publicUrl, darajaCallbackOpenApi());
  const metrics = options.metrics ?? createMetrics();
  installMetrics(app, {
    metrics,
    db: deps.db,
    token: settings.METRICS_TOKEN,
    restOperation: createRestOperationMatcher(openApiDocument),
    restMountPattern,
    procedures: new Set(Object.keys(appRouter._def.procedures)),
    rateLimitStore: options.rateLimitStore,
    statusListener: options.statusListener,
  });

  app.addHook("onSend", (_request, reply, payload, done) => {
    void reply.header("X-Content-Type-Options", "nosniff");
    void reply.header("Referrer-Policy", "no-referrer");
    done(null, payload);
  });

  app.setErrorHandler((error, request, reply) => {
    const envelope = envelopeFor(error, requestLocale(request));
    logFailure(request.log, envelope, { err: error }, "request failed");
    if (envelope.retryAfter !== undefined) void reply.header("Retry-After", String(envelope.retryAfter));
    void reply.code(envelope.status).send(envelope.body);
  });
  const onError = (error: unknown, path: string | undefined) => {
    logFailure(app.log, envelopeFor(error), { err: error, path }, "procedure failed");
  };

  // The providers' callbacks (Daraja, the SMS provider) come from servers, never from a browser: they sit
  // outside the scope of cookies and CORS, whose hooks would cost every callback and do nothing for it.
  await app.register(darajaCallbackPlugin, { deps, rejectedCallbacks: metrics.instruments.callbacksRejected });
  await app.register(smsCallbackPlugin, { deps });

  const rateLimitStore = options.rateLimitStore;
  const statusListener = options.statusListener;
  const system = { db: deps.db, tokens: deps.tokens, openApiDocument, rateLimitStore, statusListener, drain };
  await app.register(async (api) => {
    await api.register(cookie);
    await installCors(api, { origins: settings.CORS_ORIGINS, tenants: deps.tenants });
    // Here, not on the root: a browser reads a 404 of its own origin too, so it passes through CORS.
    api.setNotFoundHandler((request, reply) => {
      const envelope = envelopeFor(Object.assign(new Error("Not found"), { code: "FST_ERR_NOT_FOUND", statusCode: 404 }), requestLocale(request));
      void reply.code(envelope.status).send(envelope.body);
    });
    await api.register(systemRoutes, system);
    await api.register(docsPlugin, { openApiUrl: "/openapi.json" });
    // The dev outbox shows live reset and verification links: never in production.
    if (settings.NODE_ENV !== "production") await api.register(devOutboxRoutes, { db: deps.db });
    if (settings.NODE_ENV !== "production") await api.register(demoPlugin, { dir: settings.DEMO_DIR ?? defaultDemoDir });
    if (settings.NODE_ENV !== "production") {
      const darajaUrl = options.darajaBaseUrl ?? settings.MOMO_BASE_URL;
      await api.register(demoShopRoutes, { adminApiKey: deps.config.adminApiKey, darajaUrl, tenantId: deps.config.defaultTenantId, captchaToken: options.captchaToken });
    }
    await api.register(trpcPlugin, { router: appRouter, deps, onError });
    await api.register(restPlugin, { router: appRouter, deps, onError });
  });
  return app;
}
