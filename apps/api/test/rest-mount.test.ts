/**
 * The REST mount (src/http/rest/plugin.ts) serves each operation itself instead of trpc-to-openapi's
 * handlers: the library's Fastify adapter reshaped Fastify's request and reply on every request, and its
 * Node handler builds a WHATWG Request (for a signal nothing reads) and a caller proxy per request
 * (docs/performance.md, "Dependency patches").
 */
import { createTRPCRouter, publicProcedure, unobservedEvents, type Deps } from "@mteja/domain";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { installJsonBodyParser } from "../src/http/json-body.js";
import { restPlugin } from "../src/http/rest/index.js";

const thing = z.object({ success: z.literal(true), data: z.object({ name: z.string() }) });

const router = createTRPCRouter({
  read: publicProcedure
    .meta({ openapi: { method: "GET", path: "/v9/things/{id}" } })
    .input(z.object({ id: z.string() }))
    .output(thing)
    .query(({ input }) => ({ success: true as const, data: { name: input.id } })),
});

const deps = { events: unobservedEvents } as unknown as Deps;

describe("REST mount", () => {
  let app: FastifyInstance;
  const seen: Array<{ replyOwnKeys: string[]; requestOwnKeys: string[] }> = [];
  let replyKeysBefore: string[] = [];
  let requestKeysBefore: string[] = [];

  beforeAll(async () => {
    app = Fastify({ logger: false });
    installJsonBodyParser(app);
    app.addHook("onRequest", async (request, reply) => {
      replyKeysBefore = Object.keys(reply);
      requestKeysBefore = Object.keys(request);
    });
    app.addHook("onResponse", async (request, reply) => {
      seen.push({ replyOwnKeys: Object.keys(reply), requestOwnKeys: Object.keys(request) });
    });
    await app.register(restPlugin, { router, deps, onError: () => undefined });
    await app.ready();
  });
  afterAll(() => app.close());

  it("answers without adding properties to Fastify's request or reply (one object shape for every request)", async () => {
    const res = await app.inject({ method: "GET", url: "/v9/things/chair" });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true, data: { name: "chair" } });
    const [last] = seen.slice(-1);
    expect(last?.replyOwnKeys).toEqual(replyKeysBefore);
    expect(last?.requestOwnKeys.filter((key) => !requestKeysBefore.includes(key))).toEqual([]);
  });

  afterEach(() => vi.restoreAllMocks());

  it("calls the procedure without a caller, a WHATWG Request or an AbortController per request", async () => {
    await app.inject({ method: "GET", url: "/v9/things/warm" });
    const createCaller = vi.spyOn(router, "createCaller");
    const made = { requests: 0, controllers: 0 };
    const { Request: OriginalRequest, AbortController: OriginalController } = globalThis;
    globalThis.Request = class extends OriginalRequest {
      constructor(...args: ConstructorParameters<typeof Request>) {
        super(...args);
        made.requests++;
      }
    };
    globalThis.AbortController = class extends OriginalController {
      constructor() {
        super();
        made.controllers++;
      }
    };
    try {
      const res = await app.inject({ method: "GET", url: "/v9/things/table" });
      expect(res.json()).toEqual({ success: true, data: { name: "table" } });
    } finally {
      globalThis.Request = OriginalRequest;
      globalThis.AbortController = OriginalController;
    }
    expect(made).toEqual({ requests: 0, controllers: 0 });
    expect(createCaller).not.toHaveBeenCalled();
  });

  it("answers an unknown path with the envelope's 404", async () => {
    const res = await app.inject({ method: "GET", url: "/v9/nothing" });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ success: false, error: { code: "NOT_FOUND" } });
  });
});
