import type { Database } from "@mteja/db";
import type { AccessTokens } from "@mteja/domain";
import type { FastifyPluginAsync } from "fastify";
import type { OpenAPIObject } from "trpc-to-openapi";

export interface SystemRoutesOptions {
  db: Database;
  tokens: AccessTokens;
  openApiDocument: OpenAPIObject;
}

/** JWKS, the OpenAPI document and health checks. */
export const systemRoutes: FastifyPluginAsync<SystemRoutesOptions> = async (app, opts) => {
  app.get("/.well-known/jwks.json", async (_request, reply) => {
    void reply.header("Cache-Control", "public, max-age=300");
    return opts.tokens.jwks();
  });

  app.get("/openapi.json", async () => opts.openApiDocument);

  app.get("/healthz", async () => ({ status: "ok" }));

  app.get("/readyz", async (_request, reply) => {
    try {
      await opts.db.ping();
      const pending = await opts.db.pendingMigrations();
      if (pending.length > 0) return reply.code(503).send({ status: "migrations pending", pending });
      return { status: "ready", database: opts.db.kind };
    } catch {
      return reply.code(503).send({ status: "database unreachable" });
    }
  });
};
