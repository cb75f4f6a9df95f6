/**
 * The patches in patches/ (pnpm patchedDependencies) take per-request work out of the /me path
 * (docs/performance.md, "What /me spends its time on"). Nothing else would notice if one stopped
 * applying after an upgrade: these tests do.
 */
import { initTRPC } from "@trpc/server";
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
});
