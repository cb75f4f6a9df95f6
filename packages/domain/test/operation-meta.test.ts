/**
 * An operation's facts are declared on its procedure: the credential by the builder it is made with,
 * the per-IP limit (`ipLimited`) and the sign-in report (`signInStep`) by its meta, and the middleware
 * of trpc.ts acts on them whatever the operation's REST path.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { Context, Deps, RequestInfo } from "../src/context.js";
import { DomainError, toTrpcError } from "../src/shared/errors.js";
import { TRPCError, type AnyRouter } from "@trpc/server";
import type { SignInReport } from "../src/shared/events.js";
import { operationMetaOf } from "../src/shared/operation-meta.js";
import { appRouter } from "../src/router.js";
import { unlimited, type LimitDecision, type Limiter, type LimitRule } from "../src/shared/limiter.js";
import {
  adminApiProcedure,
  adminProcedure,
  authProcedure,
  authTokenProcedure,
  createCallerFactory,
  createTRPCRouter,
  protectedProcedure,
  publicProcedure,
  refreshCookieProcedure,
  serverProcedure,
  tenantProcedure,
} from "../src/trpc.js";

const path = { method: "POST", path: "/test/operation" } as const;

const testRouter = createTRPCRouter({
  limited: publicProcedure.meta({ ipLimited: true, openapi: path }).input(z.object({})).mutation(() => "ok"),
  unlimited: publicProcedure.meta({ openapi: path }).input(z.object({})).mutation(() => "ok"),
  limitedSignIn: publicProcedure
    .meta({ signInStep: "password", ipLimited: true, openapi: path })
    .input(z.object({}))
    .mutation(() => ({ success: true, data: { requires_otp: false }, message: "" })),
  signIn: publicProcedure
    .meta({ signInStep: "password", openapi: path })
    .input(z.object({ result: z.enum(["success", "second-factor", "wrong"]) }))
    .mutation(({ input }) => {
      if (input.result === "wrong") throw new DomainError("INVALID_CREDENTIALS");
      return { success: true, data: { requires_otp: input.result === "second-factor" }, message: "" };
    }),
  adminOnly: adminApiProcedure.meta({ openapi: path }).query(() => "ok"),
  cookie: refreshCookieProcedure.meta({ openapi: path }).query(() => "ok"),
  server: serverProcedure.meta({ openapi: path }).query(() => "ok"),
});

function harness(limit: () => Promise<LimitDecision> = async () => ({ allowed: true, retryAfter: 0 })) {
  const consumed: Array<[LimitRule, string]> = [];
  const reports: SignInReport[] = [];
  const limiter: Limiter = {
    consume: async (rule: LimitRule, key: string) => {
      consumed.push([rule, key]);
      return limit();
    },
    refund: async () => undefined,
    reset: async () => undefined,
    peek: async () => ({ allowed: true, retryAfter: 0 }),
    tally: unlimited.tally,
    numberOf: unlimited.numberOf,
  };
  const deps = { limiter, events: { signIn: (report: SignInReport) => reports.push(report) } } as unknown as Deps;
  const request = { ip: "::ffff:203.0.113.9", tenantHeader: undefined, authorization: undefined } as unknown as RequestInfo;
  const caller = createCallerFactory(testRouter)({ deps, request } satisfies Context);
  return { caller, consumed, reports };
}

describe("operation facts on the procedure", () => {
  it("counts an operation against the caller's IP when its meta says ipLimited, whatever its path", async () => {
    const { caller, consumed } = harness();
    await caller.limited({});
    expect(consumed).toEqual([["auth_requests_per_ip", "203.0.113.9"]]);
    await caller.unlimited({});
    expect(consumed).toHaveLength(1);
  });

  it("reports each outcome of a sign-in step through deps.events", async () => {
    const { caller, reports } = harness();
    await caller.signIn({ result: "success" });
    await caller.signIn({ result: "second-factor" });
    await expect(caller.signIn({ result: "wrong" })).rejects.toThrow();
    await expect(caller.signIn({ result: "nonsense" } as never)).rejects.toThrow();
    await caller.limited({});
    expect(reports).toEqual([
      { step: "password", outcome: "success" },
      { step: "password", outcome: "requires_otp" },
      { step: "password", outcome: "invalid_credentials" },
      { step: "password", outcome: "validation_error" },
    ]);
  });

  it("answers a sign-in refused by the per-IP limit with RATE_LIMITED, and reports it", async () => {
    const { caller, reports } = harness(async () => ({ allowed: false, retryAfter: 30 }));
    const refused = await caller.limitedSignIn({}).then(
      () => undefined,
      (error: unknown) => error,
    );
    const expected = toTrpcError(new DomainError("RATE_LIMITED", undefined, { retryAfter: 30 }));
    expect(refused).toBeInstanceOf(TRPCError);
    expect((refused as TRPCError).code).toBe(expected.code);
    expect(((refused as TRPCError).cause as DomainError).code).toBe("RATE_LIMITED");
    expect(((refused as TRPCError).cause as DomainError).retryAfter).toBe(30);
    expect(reports).toEqual([{ step: "password", outcome: "rate_limited" }]);
  });

  it("lets a limiter outage through as an internal error, and reports it", async () => {
    const outage = new Error("redis unreachable");
    const { caller, reports } = harness(async () => {
      throw outage;
    });
    const failed = await caller.limitedSignIn({}).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failed).toBeInstanceOf(TRPCError);
    expect((failed as TRPCError).code).toBe("INTERNAL_SERVER_ERROR");
    expect((failed as TRPCError).cause).toBe(outage);
    expect(reports).toEqual([{ step: "password", outcome: "internal_error" }]);
  });

  it("runs at most two middlewares of the ladder (operation facts, credential) per operation", () => {
    const middlewares = (router: AnyRouter, name: string) =>
      (router._def.procedures as Record<string, { _def: { middlewares: unknown[] } }>)[name]!._def.middlewares.length;
    const builders = {
      publicProcedure,
      tenantProcedure,
      authProcedure,
      authTokenProcedure,
      protectedProcedure,
      adminProcedure,
      adminApiProcedure,
      serverProcedure,
      refreshCookieProcedure,
    };
    const bare = createTRPCRouter(Object.fromEntries(Object.entries(builders).map(([name, builder]) => [name, builder.query(() => "ok")])));
    for (const name of Object.keys(builders)) expect(middlewares(bare, name) - 1, name).toBeLessThanOrEqual(2); // less the resolver
    // GET /me: the two, then tRPC's input, output and resolver.
    expect(middlewares(appRouter, "profile.me")).toBe(5);
  });

  it("leaves the session check to the procedure in GET /me only (docs/architecture.md, the one exception)", () => {
    type Middlewares = { _def: { middlewares: unknown[] } };
    // The builder's credential middleware, the last of its own: in every procedure made with it.
    const own = (authTokenProcedure as unknown as Middlewares)._def.middlewares.at(-1);
    const procedures = appRouter._def.procedures as unknown as Record<string, Middlewares>;
    const built = Object.keys(procedures).filter((name) => procedures[name]!._def.middlewares.includes(own));
    expect(built).toEqual(["profile.me"]);
  });

  it("takes the credential from the builder, and a router's own meta keeps it", () => {
    expect(operationMetaOf(testRouter, "unlimited")?.credential).toBe("none");
    expect(operationMetaOf(testRouter, "adminOnly")?.credential).toBe("adminKey");
    expect(operationMetaOf(testRouter, "cookie")?.credential).toBe("refreshCookie");
    expect(operationMetaOf(testRouter, "server")?.credential).toBe("apiKey");
    expect(operationMetaOf(testRouter, "adminOnly")?.openapi?.path).toBe("/test/operation");
    expect(operationMetaOf(testRouter, "nothing.here")).toBeUndefined();
    expect(operationMetaOf(testRouter, "__proto__")).toBeUndefined();
  });

  it("declares the credential of every REST operation of the app by its builder", () => {
    const credentials = (names: string[]) => names.map((name) => operationMetaOf(appRouter, name)?.credential);
    expect(credentials(["auth.login", "auth.register", "auth.forgotPassword", "addresses.counties"])).toEqual(["none", "none", "none", "none"]);
    expect(credentials(["auth.refresh", "auth.logout"])).toEqual(["refreshCookie", "refreshCookie"]);
    expect(credentials(["profile.me", "otp.setup", "payments.stkPush", "payments.b2c"])).toEqual(["bearer", "bearer", "bearer", "bearer"]);
    expect(credentials(["admin.createTenant", "apiKeys.create", "apiKeys.list", "apiKeys.revoke"])).toEqual(["adminKey", "adminKey", "adminKey", "adminKey"]);
    expect(credentials(["apiKeys.current"])).toEqual(["apiKey"]);
  });

  it("marks the unauthenticated auth operations (and only those) as IP-limited", () => {
    const limited = Object.keys(appRouter._def.procedures).filter((name) => operationMetaOf(appRouter, name)?.ipLimited);
    expect(limited.sort()).toEqual(
      ["auth.forgotPassword", "auth.login", "auth.refresh", "auth.register", "auth.resetPassword", "auth.verifyEmail", "otp.validate", "phone.start", "phone.verify", "google.start", "google.nonce", "google.idToken"].sort(),
    );
  });
});
