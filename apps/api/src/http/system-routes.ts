import type { Database } from "@mteja/db";
import type { AccessTokens } from "@mteja/domain";
import type { FastifyPluginAsync } from "fastify";
import type { OpenAPIObject } from "trpc-to-openapi";
import type { Drain } from "../runtime/drain.js";
import type { RateLimitStore } from "../runtime/rate-limit-store.js";

export interface SystemRoutesOptions {
  db: Database;
  tokens: AccessTokens;
  openApiDocument: OpenAPIObject;
  /** With REDIS_URL: the store of the abuse-limit counters. */
  rateLimitStore?: RateLimitStore | undefined;
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
      if (!opts.rateLimitStore) return { status: "ready", database: opts.db.kind };
      // Still 200 without Redis: every instance loses it at once, and draining them all would turn a
      // weaker limit (per instance) into an outage. The body says it; so do the log and the gauge.
      return opts.rateLimitStore.state() === "connected"
        ? { status: "ready", database: opts.db.kind, redis: "connected" }
        : { status: "degraded", database: opts.db.kind, redis: "unavailable" };
    } catch {
      return reply.code(503).send({ status: "database unreachable" });
    }
  });
};
