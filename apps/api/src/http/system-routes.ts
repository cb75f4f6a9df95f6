import type { Database } from "@mteja/db";
import type { AccessTokens } from "@mteja/domain";
import type { FastifyPluginAsync } from "fastify";
import type { OpenAPIObject } from "trpc-to-openapi";
import type { Drain } from "../runtime/drain.js";
import type { RateLimitStore } from "../runtime/rate-limit-store.js";
import type { StatusListenerState } from "../runtime/status-notices.js";

/** The connection listening for payment status notices (runtime/status-notices.ts). */
export interface StatusListener {
  state(): StatusListenerState;
}

export interface SystemRoutesOptions {
  db: Database;
  tokens: AccessTokens;
  openApiDocument: OpenAPIObject;
  /** With REDIS_URL: the store of the abuse-limit counters. */
  rateLimitStore?: RateLimitStore | undefined;
  /** On PostgreSQL: the connection listening for payment status notices. */
  statusListener?: StatusListener | undefined;
  /** Draining (a stop has begun): /readyz answers 503 so the balancer stops sending. */
  drain: Drain;
}

/** JWKS, the OpenAPI document and health checks (docs/operations.md "Behind a load balancer"). */
export const systemRoutes: FastifyPluginAsync<SystemRoutesOptions> = async (app, opts) => {
  app.get("/.well-known/jwks.json", async (_request, reply) => {
    void reply.header("Cache-Control", "public, max-age=300");
    return opts.tokens.jwks();
  });

  app.get("/openapi.json", async () => opts.openApiDocument);

  app.get("/healthz", async () => ({ status: "ok" }));

  app.get("/readyz", async (_request, reply) => {
    if (opts.drain.draining) return reply.code(503).send({ status: "draining" });
    try {
      await opts.db.ping();
      const pending = await opts.db.pendingMigrations();
      if (pending.length > 0) return reply.code(503).send({ status: "migrations pending", pending });
      // Still 200 without Redis or the status listener: every instance loses them at once, and draining
      // them all would turn a weaker limit (per instance) or a slower status (the 2 s re-check) into an
      // outage. The body says it; so do the log and the gauges.
      const redis = opts.rateLimitStore && (opts.rateLimitStore.state() === "connected" ? "connected" : "unavailable");
      const listener = opts.statusListener?.state();
      const degraded = redis === "unavailable" || listener === "reconnecting";
      return {
        status: degraded ? "degraded" : "ready",
        database: opts.db.kind,
        ...(redis ? { redis } : {}),
        ...(listener ? { status_listener: listener } : {}),
      };
    } catch {
      return reply.code(503).send({ status: "database unreachable" });
    }
  });
};
