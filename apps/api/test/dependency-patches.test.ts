/**
 * The one dependency patch left (patches/@trpc__server@11.25.2.patch, ESM build only: nothing here
 * loads tRPC's CommonJS build) keeps per-request work out of every procedure call and out of the /trpc
 * mount, where tRPC's public API cannot (docs/performance.md, "Dependency patches"). Each test fails
 * without its hunk, so an upgrade that drops one is noticed.
 */
import { initTRPC, TRPCError } from "@trpc/server";
import { resolveResponse, resolveResponseParts } from "@trpc/server/http";
import { afterEach, describe, expect, it, vi } from "vitest";

afterEach(() => vi.restoreAllMocks());

describe("patched @trpc/server", () => {
  describe("its object-spread helper (getErrorShape-*.mjs)", () => {
    it("copies a middleware chain's call options with Object.assign, not a defineProperty per key", async () => {
      const t = initTRPC.context<{ user: string }>().create();
      const router = t.router({
        read: t.procedure
          .use(({ next }) => next({ ctx: { seen: 1 } }))
          .use(({ next }) => next())
          .query(({ ctx }) => ({ user: ctx.user, seen: ctx.seen })),
      });
      const caller = t.createCallerFactory(router)({ user: "wanjiku" });
      await caller.read(); // anything made once (lazily) is made before counting
      const defineProperty = vi.spyOn(Object, "defineProperty");
      const defineProperties = vi.spyOn(Object, "defineProperties");
      defineProperty.mockClear(); // the spies' own set-up
      const result = await caller.read();
      const counts = { defineProperty: defineProperty.mock.calls.length, defineProperties: defineProperties.mock.calls.length };
      vi.restoreAllMocks(); // before expect, which defines properties of its own
      expect(result).toEqual({ user: "wanjiku", seen: 1 });
      expect(counts).toEqual({ defineProperty: 0, defineProperties: 0 });
    });

    it("still defines an own __proto__ key of a middleware's context as a property", async () => {
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

  describe("resolveResponse (resolveResponse-*.mjs, http.mjs)", () => {
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

    it("gives a query in a whole-document answer no signal, as REST calls get none, and reads neither the request's signal nor makes one of its own", async () => {
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
