/**
 * A deprecated operation (docs/api-versioning.md), declared once on its procedure
 * (`meta.deprecated`): both transports answer it — successes and errors, alone or in a tRPC batch —
 * with `Deprecation` (RFC 9745) and `Sunset` (RFC 8594) headers, and the OpenAPI document marks it
 * deprecated. No operation of the service is deprecated yet, so the mounts serve a router of their own.
 */
import { createTRPCRouter, DomainError, publicProcedure, unobservedEvents, type Deps } from "@mteja/domain";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { installJsonBodyParser } from "../src/http/json-body.js";
import { buildOpenApiDocument, restPlugin } from "../src/http/rest/index.js";
import { trpcPlugin } from "../src/http/trpc.js";

const answer = z.object({ success: z.literal(true), data: z.object({ name: z.string() }) });
const deprecated = { since: "2026-11-25", sunset: "2027-06-01", replacement: "POST /v9/things" };

const router = createTRPCRouter({
  old: publicProcedure
    .meta({ deprecated, openapi: { method: "POST", path: "/v9/old-things", summary: "Create a thing the old way" } })
    .input(z.object({ name: z.string() }))
    .output(answer)
    .mutation(({ input }) => {
      if (input.name === "taken") throw new DomainError("USER_EXISTS");
      return { success: true as const, data: { name: input.name } };
    }),
  current: publicProcedure
    .meta({ openapi: { method: "POST", path: "/v9/things", summary: "Create a thing" } })
    .input(z.object({ name: z.string() }))
    .output(answer)
    .mutation(({ input }) => ({ success: true as const, data: { name: input.name } })),
});

const deps = { events: unobservedEvents } as unknown as Deps;
const deprecationHeader = `@${Date.UTC(2026, 10, 25) / 1000}`;
const sunsetHeader = "Tue, 01 Jun 2027 00:00:00 GMT";

describe("a deprecated operation", () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = Fastify({ logger: false });
    installJsonBodyParser(app);
    await app.register(trpcPlugin, { router: router as never, deps, onError: () => undefined });
    await app.register(restPlugin, { router, deps, onError: () => undefined });
    await app.ready();
  });
  afterAll(() => app.close());

  const post = (url: string, body: unknown) => app.inject({ method: "POST", url, payload: JSON.stringify(body), headers: { "content-type": "application/json" } });

  it("answers over REST with Deprecation and Sunset headers, on success and on error", async () => {
    const ok = await post("/v9/old-things", { name: "chair" });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers.deprecation).toBe(deprecationHeader);
    expect(ok.headers.sunset).toBe(sunsetHeader);
    expect(ok.headers.link).toBe('</docs>; rel="deprecation"; type="text/html"');
    const refused = await post("/v9/old-things", { name: "taken" });
    expect(refused.statusCode).toBe(409);
    expect(refused.headers.deprecation).toBe(deprecationHeader);
    expect(refused.headers.sunset).toBe(sunsetHeader);
  });

  it("answers over tRPC with the same headers, also for a batch that holds it", async () => {
    const alone = await post("/trpc/old", { name: "chair" });
    expect(alone.statusCode).toBe(200);
    expect(alone.headers.deprecation).toBe(deprecationHeader);
    expect(alone.headers.sunset).toBe(sunsetHeader);
    const batch = await post("/trpc/current,old?batch=1", { 0: { name: "a" }, 1: { name: "b" } });
    expect(batch.statusCode).toBe(200);
    expect(batch.headers.sunset).toBe(sunsetHeader);
  });

  it("leaves operations that are not deprecated without them", async () => {
    for (const res of [await post("/v9/things", { name: "chair" }), await post("/trpc/current", { name: "chair" })]) {
      expect(res.statusCode).toBe(200);
      expect(res.headers.deprecation).toBeUndefined();
      expect(res.headers.sunset).toBeUndefined();
    }
  });

  it("is marked deprecated in the OpenAPI document, with its replacement and headers", () => {
    const document = buildOpenApiDocument(router, "http://localhost") as any;
    const old = document.paths["/v9/old-things"].post;
    expect(old.deprecated).toBe(true);
    expect(old.description).toContain("Use POST /v9/things instead");
    expect(Object.keys(old.responses["200"].headers)).toEqual(expect.arrayContaining(["Deprecation", "Sunset"]));
    expect(Object.keys(old.responses["409"]?.headers ?? old.responses["500"].headers)).toEqual(expect.arrayContaining(["Deprecation", "Sunset"]));
    expect(document.paths["/v9/things"].post.deprecated).toBeUndefined();
  });
});
