/**
 * The patches in patches/ (pnpm patchedDependencies) take per-request work out of the /me path
 * (docs/performance.md, "What /me spends its time on"). Nothing else would notice if one stopped
 * applying after an upgrade: these tests do.
 */
import { initTRPC, TRPCError } from "@trpc/server";
import { resolveResponse, resolveResponseParts } from "@trpc/server/http";
import Fastify from "fastify";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { createOpenApiNodeHttpHandler, type OpenApiMeta } from "trpc-to-openapi";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { RestRequest, RestResponse } from "../src/http/rest/node-pair.js";

describe("patched dependencies", () => {
  it("trpc-to-openapi makes a request's AbortSignal only when it is read (no WHATWG Request per call), with one getter for every call, and calls the procedure without a caller per request", async () => {
    const t = initTRPC.context<{ info: unknown }>().meta<OpenApiMeta>().create();
    const router = t.router({
      ping: t.procedure
        .meta({ openapi: { method: "GET", path: "/ping" } })
        .input(z.object({}).optional())
        .output(z.object({ pong: z.boolean() }))
        .query(() => ({ pong: true })),
    });
    const createCaller = vi.spyOn(router, "createCaller");
    const infos: Array<{ signal?: AbortSignal }> = [];
    const handle = createOpenApiNodeHttpHandler({
      router,
      createContext: ({ info }: { info: unknown }) => {
        infos.push(info as { signal?: AbortSignal });
        return { info };
      },
    } as never) as unknown as (req: RestRequest, res: RestResponse) => Promise<void>;
    const app = Fastify({ logger: false });
    app.get("/*", async (request, reply) => {
      await handle(new RestRequest(request), new RestResponse(reply));
      return reply;
    });
    const answers = [await app.inject({ method: "GET", url: "/ping" }), await app.inject({ method: "GET", url: "/ping" })];
    await app.close();
    for (const res of answers) expect(res.json()).toEqual({ pong: true });
    // Not an accessor of each call's own (V8 would keep each call's request alive past its answer).
    const getters = infos.map((info) => {
      expect(Object.getOwnPropertyDescriptor(info, "signal")).toBeUndefined();
      return Object.getOwnPropertyDescriptor(Object.getPrototypeOf(info), "signal")?.get;
    });
    expect(typeof getters[0]).toBe("function");
    expect(getters[1]).toBe(getters[0]);
    for (const info of infos) expect(info.signal).toBeInstanceOf(AbortSignal);
    expect(createCaller).not.toHaveBeenCalled();
  });

  it("@trpc/server copies spread objects with Object.assign instead of a defineProperty per key", () => {
    const entry = createRequire(import.meta.url).resolve("@trpc/server");
    const dist = path.dirname(entry);
    const helpers = readdirSync(dist).filter((name) => /\.(c|m)js$/.test(name) && readFileSync(path.join(dist, name), "utf8").includes("function _objectSpread2("));
    expect(helpers.length).toBeGreaterThan(0);
    for (const name of helpers) expect(readFileSync(path.join(dist, name), "utf8"), name).toContain("Object.assign(e, t);");
  });

  it("@trpc/server's middleware chain and validators spread with native object spread (one object per level, no helper)", () => {
    const dist = path.dirname(createRequire(import.meta.url).resolve("@trpc/server"));
    const chains = readdirSync(dist).filter((name) => /\.(c|m)js$/.test(name) && readFileSync(path.join(dist, name), "utf8").includes("async function callRecursive("));
    expect(chains.length).toBeGreaterThan(0);
    for (const name of chains) {
      const source = readFileSync(path.join(dist, name), "utf8");
      expect(source, name).toContain("return callRecursive(index + 1, _def, {\n\t\t\t\t\t...opts,");
      expect(source, name).toContain("return { ...result, data };");
    }
  });

  it("@trpc/server still defines an own __proto__ key of a middleware's context as a property", async () => {
    const t = initTRPC.context<Record<string, unknown>>().create();
    const extra = JSON.parse('{"__proto__": {"polluted": true}, "plain": 1}') as Record<string, unknown>;
    const router = t.router({
      read: t.procedure.use(({ next }) => next({ ctx: extra })).query(({ ctx }) => ({
        plain: ctx.plain,
        ownProto: Object.prototype.hasOwnProperty.call(ctx, "__proto__"),
        inherited: (ctx as { polluted?: unknown }).polluted,
      })),
    });
    const result = await t.createCallerFactory(router)({})["read"]();
    expect(result).toEqual({ plain: 1, ownProto: true, inherited: undefined });
  });
  describe("@trpc/server resolveResponse", () => {
    const t = initTRPC.create({ isDev: false }); // no stacks in error shapes: the two answers are compared whole
    const seen: { signal?: AbortSignal }[] = [];
    const router = t.router({
      ping: t.procedure.query(({ signal }) => {
        seen.push({ signal });
        return { pong: true };
      }),
      fail: t.procedure.query(() => {
        throw new TRPCError({ code: "FORBIDDEN", message: "no" });
      }),
      ticks: t.procedure.subscription(({ signal }) => {
        seen.push({ signal });
        return (async function* () {
          yield 1;
        })();
      }),
    });
    const requestFor = (url: string, init: RequestInit = {}) => new Request(`http://localhost/trpc/${url}`, init);
    const optionsFor = (req: Request, path: string) => ({ router, req, path, allowBatching: true, maxBatchSize: 2, error: null, createContext: async () => ({}) });

    it("resolveResponseParts answers exactly as resolveResponse, without the Response", async () => {
      const cases: [string, string, RequestInit?][] = [
        ["ping", "ping"],
        ["fail", "fail"],
        ["ping,fail?batch=1", "ping,fail"],
        ["ping,ping,ping?batch=1", "ping,ping,ping"], // over maxBatchSize: refused before any call, no content type of tRPC's
        ["nothing", "nothing"],
        ["ping", "ping", { method: "HEAD" }],
      ];
      for (const [url, path, init] of cases) {
        const whole = await resolveResponse(optionsFor(requestFor(url, init), path));
        const parts = await resolveResponseParts(optionsFor(requestFor(url, init), path));
        expect(parts.status, url).toBe(whole.status);
        expect([...parts.headers], url).toEqual([...whole.headers]);
        expect(parts.body, url).toBe(whole.body === null ? null : await whole.text());
      }
    });

    it("gives a query in a whole-document answer no signal, as trpc-to-openapi's REST calls give none, and reads neither the request's signal nor makes one of its own", async () => {
      const req = new Request("http://localhost/trpc/ping?batch=1&input=%7B%7D", { method: "GET" });
      let signalReads = 0;
      const watched = new Proxy(req, {
        get(target, key) {
          if (key === "signal") signalReads++;
          const value: unknown = Reflect.get(target, key, target);
          return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
        },
      });
      const Original = globalThis.AbortController;
      let made = 0;
      globalThis.AbortController = class extends Original {
        constructor() {
          super();
          made++;
        }
      };
      seen.length = 0;
      try {
        const parts = await resolveResponseParts(optionsFor(watched, "ping"));
        expect(parts.status).toBe(200);
      } finally {
        globalThis.AbortController = Original;
      }
      expect(seen).toEqual([{ signal: undefined }]);
      expect(signalReads).toBe(0);
      expect(made).toBe(0);
    });

    it("still gives a subscription a signal of its own that aborts with the request's", async () => {
      const controller = new AbortController();
      const req = new Request("http://localhost/trpc/ticks", { signal: controller.signal });
      seen.length = 0;
      const parts = await resolveResponseParts(optionsFor(req, "ticks"));
      expect(parts.body).toBeInstanceOf(ReadableStream);
      const signal = seen[0]?.signal;
      expect(signal).toBeInstanceOf(AbortSignal);
      expect(signal).not.toBe(req.signal);
      controller.abort();
      expect(signal?.aborted).toBe(true);
      await (parts.body as ReadableStream).cancel();
    });
  });
});
