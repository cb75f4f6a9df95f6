/**
 * The REST adapter (src/http/rest/) on a router of its own: what it adds to trpc-to-openapi (the
 * envelope, empty and DELETE bodies, statuses and the document) comes from the procedures' declared
 * facts, never from a list of paths, so a new operation needs nothing outside its own procedure.
 */
import {
  adminApiProcedure,
  createTRPCRouter,
  DomainError,
  publicProcedure,
  refreshCookieProcedure,
  unobservedEvents,
  type Deps,
} from "@mteja/domain";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { installJsonBodyParser } from "../src/http/json-body.js";
import { buildOpenApiDocument, restPlugin } from "../src/http/rest/index.js";

const thing = z.object({ success: z.literal(true), data: z.object({ name: z.string() }) });

const router = createTRPCRouter({
  create: publicProcedure
    .meta({ successStatus: 201, openapi: { method: "POST", path: "/v9/things" } })
    .input(z.object({ name: z.string() }))
    .output(thing)
    .mutation(({ input }) => ({ success: true as const, data: { name: input.name } })),
  remove: publicProcedure
    .meta({ openapi: { method: "DELETE", path: "/v9/things/{id}" } })
    .input(z.object({ id: z.string(), password: z.string() }))
    .output(thing)
    .mutation(({ input }) => ({ success: true as const, data: { name: `${input.id}:${input.password}` } })),
  take: publicProcedure
    .meta({ acceptedDescription: "Taken; the outcome follows later.", openapi: { method: "POST", path: "/v9/take" } })
    .input(z.object({}).strip().optional())
    .output(thing)
    .mutation(({ ctx }) => {
      ctx.request.markAccepted();
      return { success: true as const, data: { name: "taken" } };
    }),
  clash: publicProcedure
    .meta({ openapi: { method: "POST", path: "/v9/clash" } })
    .input(z.object({}).strip().optional())
    .output(thing)
    .mutation(() => {
      throw new DomainError("USER_EXISTS", "error.USER_EXISTS");
    }),
  rotate: refreshCookieProcedure
    .meta({ openapi: { method: "POST", path: "/v9/rotate" } })
    .input(z.object({}).strip().optional())
    .output(thing)
    .mutation(() => ({ success: true as const, data: { name: "rotated" } })),
  operate: adminApiProcedure
    .meta({ openapi: { method: "GET", path: "/v9/operate" } })
    .input(z.object({}).strip().optional())
    .output(thing)
    .query(() => ({ success: true as const, data: { name: "operated" } })),
});

const deps = { events: unobservedEvents } as unknown as Deps;

describe("REST adapter", () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = Fastify({ logger: false });
    installJsonBodyParser(app);
    await app.register(restPlugin, { router, deps, onError: () => undefined });
    await app.ready();
  });
  afterAll(() => app.close());

  const post = (url: string, body?: unknown) =>
    app.inject({ method: "POST", url, ...(body === undefined ? {} : { payload: JSON.stringify(body), headers: { "content-type": "application/json" } }) });

  it("answers 201 for an operation whose procedure declares successStatus 201", async () => {
    const res = await post("/v9/things", { name: "chair" });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ success: true, data: { name: "chair" } });
  });

  it("answers 202 when the domain marks the request accepted", async () => {
    expect((await post("/v9/take", {})).statusCode).toBe(202);
  });

  it("takes a POST without body or content type as empty input", async () => {
    const res = await app.inject({ method: "POST", url: "/v9/take" });
    expect(res.statusCode).toBe(202);
    expect(res.json().data).toEqual({ name: "taken" });
  });

  it("reads a DELETE's JSON body as its input, next to the path parameters", async () => {
    const res = await app.inject({ method: "DELETE", url: "/v9/things/7", payload: JSON.stringify({ password: "secret" }), headers: { "content-type": "application/json" } });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({ name: "7:secret" });
  });

  it("answers errors with the envelope only, at the status of the error code", async () => {
    const res = await post("/v9/clash");
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ success: false, message: "An account with this email already exists.", error: { code: "USER_EXISTS" } });
  });

  it("finds an operation as trpc-to-openapi did: whatever the case of its path's letters, with a trailing slash", async () => {
    const res = await app.inject({ method: "DELETE", url: "/V9/Things/Ab/", payload: JSON.stringify({ password: "p" }), headers: { "content-type": "application/json" } });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({ name: "Ab:p" });
  });

  it("answers a HEAD of any path 204, an unknown path or method 404 in the request's language", async () => {
    expect((await app.inject({ method: "HEAD", url: "/v9/anything" })).statusCode).toBe(204);
    for (const [method, url] of [["GET", "/v9/nothing"], ["GET", "/v9/things"]] as const) {
      const res = await app.inject({ method, url, headers: { "accept-language": "sw" } });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ success: false, message: "Haikupatikana.", error: { code: "NOT_FOUND" } });
    }
  });

  it("refuses a body-less POST with a content type other than JSON, 400 MALFORMED_REQUEST", async () => {
    const res = await app.inject({ method: "POST", url: "/v9/take", headers: { "content-type": "text/plain" } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ success: false, error: { code: "MALFORMED_REQUEST" } });
  });

  it("documents each operation from its procedure: credential, 201 and 202 answers, DELETE body", () => {
    const document = buildOpenApiDocument(router, "http://localhost") as any;
    const operation = (path: string, method: string) => document.paths[path][method];
    expect(operation("/v9/things", "post").security).toEqual([]);
    expect(Object.keys(operation("/v9/things", "post").responses)).toContain("201");
    expect(Object.keys(operation("/v9/things", "post").responses)).not.toContain("200");
    expect(operation("/v9/take", "post").responses["202"].description).toBe("Taken; the outcome follows later.");
    expect(operation("/v9/rotate", "post").security).toEqual([{ refreshCookie: [] }]);
    expect(operation("/v9/operate", "get").security).toEqual([{ adminApiKey: [] }]);
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual(["Authorization", "adminApiKey", "apiKey", "refreshCookie"]);
    expect(operation("/v9/things/{id}", "delete").requestBody.content["application/json"].schema.properties).toHaveProperty("password");
  });
});
