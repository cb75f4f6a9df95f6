/**
 * The REST mount hands trpc-to-openapi thin views of Fastify's request and reply (src/http/rest/
 * node-pair.ts) instead of the library's Fastify adapter, which reshaped both on every request and
 * aborted a signal after every answer (docs/performance.md, "What /me spends its time on").
 */
import { createTRPCRouter, publicProcedure, unobservedEvents, type Deps } from "@mteja/domain";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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

  it("answers an unknown path with the envelope's 404", async () => {
    const res = await app.inject({ method: "GET", url: "/v9/nothing" });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ success: false, error: { code: "NOT_FOUND" } });
  });
});
