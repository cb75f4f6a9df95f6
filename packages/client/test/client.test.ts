/** @mteja/client against the real service: typed calls, transparent token refresh, one shared refresh, failures. */
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import { startTestApp, uniqueEmail, type TestApp } from "@mteja/test-support/app";
import { testClock } from "@mteja/test-support/clock";
import { callOptions, createMtejaClient, isMtejaError, TRPCClientError, type AuthStateEvent, type ErrorCode, type MtejaClient, type RouterInputs, type RouterOutputs } from "../src/index.js";

interface Counted {
  fetch: typeof fetch;
  paths: string[];
  count(path: string): number;
}

/** A fetch that records the path of every request the client makes. */
function countingFetch(): Counted {
  const paths: string[] = [];
  return {
    paths,
    fetch: (input, init) => {
      const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
      paths.push(new URL(url).pathname);
      return fetch(input, init);
    },
    count: (path) => paths.filter((p) => p === path).length,
  };
}

function errorCode(error: unknown): { code: unknown; status: unknown } {
  expect(error).toBeInstanceOf(TRPCClientError);
  const e = error as { shape?: { error?: { code?: unknown } }; data?: { httpStatus?: unknown } };
  return { code: e.shape?.error?.code, status: e.data?.httpStatus };
}

describe("createMtejaClient", () => {
  let t: TestApp;
  const clock = testClock();
  beforeAll(async () => {
    t = await startTestApp({ ACCESS_TOKEN_TTL_SECONDS: "60" }, { now: clock.now });
  });
  afterAll(async () => t?.close());

  async function signedIn(counted = countingFetch(), tokens: Array<string | null> = []) {
    const client = createMtejaClient({ baseUrl: `${t.url}/`, tenantId: "default", fetch: counted.fetch, onAccessToken: (token) => tokens.push(token) });
    const email = uniqueEmail("client");
    await client.api.auth.register.mutate({ name: "Njeri Mwangi", email, password: "correct horse battery" });
    return { client, counted, tokens, email };
  }

  it("makes typed calls and keeps the access token from register and login", async () => {
    const { client, tokens, email } = await signedIn();
    expect(tokens).toHaveLength(1);
    expect(client.getAccessToken()).toBe(tokens[0]);

    const me = await client.api.profile.me.query();
    // null for an account created by phone sign-in (docs/phone-sign-in.md).
    expectTypeOf(me.data.email).toEqualTypeOf<string | null>();
    expect(me.data.email).toBe(email);

    const login = await client.api.auth.login.mutate({ email, password: "correct horse battery" });
    if (login.data.requires_otp) throw new Error("two-factor is off for this account");
    expect(client.getAccessToken()).toBe(login.data.access_token);
    expect(tokens).toHaveLength(2);

    // @ts-expect-error: the input type comes from the router, so a missing field does not compile.
    const invalid = client.api.auth.login.mutate({ email }).catch((error: unknown) => error);
    expect(errorCode(await invalid)).toEqual({ code: "VALIDATION_ERROR", status: 422 });
  });

  it("survives access-token expiry: the next call refreshes once and succeeds", async () => {
    const { client, counted, tokens, email } = await signedIn();
    const before = client.getAccessToken();
    clock.advance(61);

    const me = await client.api.profile.me.query();
    expect(me.data.email).toBe(email);
    expect(counted.count("/api/v1/auth/refresh")).toBe(1);
    expect(client.getAccessToken()).not.toBe(before);
    expect(tokens.at(-1)).toBe(client.getAccessToken());

    // The new token is used from now on: no further refresh.
    await client.api.profile.me.query();
    expect(counted.count("/api/v1/auth/refresh")).toBe(1);

    // And the rotated cookie still works when the new token expires too.
    clock.advance(61);
    await client.api.addresses.list.query();
    expect(counted.count("/api/v1/auth/refresh")).toBe(2);
  });

  it("shares one refresh among concurrent calls, batched or not", async () => {
    const { client, counted } = await signedIn();
    clock.advance(61);
    const batched = [client.api.profile.me.query(), client.api.addresses.list.query(), client.api.profile.me.query()];
    // Calls issued in later ticks fall outside the batch, while the refresh is in flight.
    const later = [0, 1, 5].map((ms) => new Promise((resolve) => setTimeout(resolve, ms)).then(() => client.api.addresses.list.query()));
    const results = await Promise.all([...batched, ...later]);
    expect(results.every((r) => r.success)).toBe(true);
    expect(counted.count("/api/v1/auth/refresh")).toBe(1);
  });

  it("sends at most 10 calls in one batch (the service refuses larger batches), so 25 calls made together all succeed", async () => {
    const { client, counted } = await signedIn();
    const before = counted.paths.length;
    const results = await Promise.all(Array.from({ length: 25 }, (_, i) => (i % 2 ? client.api.profile.me.query() : client.api.addresses.list.query())));
    expect(results.every((r) => r.success)).toBe(true);
    const batches = counted.paths.slice(before).filter((path) => path.startsWith("/trpc/")).map((path) => decodeURIComponent(path.slice("/trpc/".length)).split(","));
    expect(batches.map((calls) => calls.length).sort((a, b) => a - b)).toEqual([5, 10, 10]);
  });

  it("surfaces a failed refresh as the refresh's error and forgets the token", async () => {
    const { client, tokens } = await signedIn();
    await t.deps.db.unscoped("test").session.updateMany({ where: { revokedAt: null }, data: { revokedAt: clock.now(), revokedReason: "test" } });
    clock.advance(61);

    const error = await client.api.profile.me.query().catch((e: unknown) => e);
    expect(errorCode(error)).toEqual({ code: "INVALID_TOKEN", status: 401 });
    expect(client.getAccessToken()).toBeNull();
    expect(tokens.at(-1)).toBeNull();
  });

  it("answers AUTH_REQUIRED when there is no refresh cookie to use", async () => {
    const { client: first } = await signedIn();
    const counted = countingFetch();
    // A token without the cookie (handed over from elsewhere): the refresh cannot succeed.
    const client: MtejaClient = createMtejaClient({ baseUrl: t.url, tenantId: "default", fetch: counted.fetch, accessToken: first.getAccessToken() });
    clock.advance(61);
    const error = await client.api.addresses.list.query().catch((e: unknown) => e);
    expect(errorCode(error)).toEqual({ code: "AUTH_REQUIRED", status: 401 });
    expect(counted.count("/api/v1/auth/refresh")).toBe(1);
  });

  it("logs out through REST so the cookie goes along, and the session is over", async () => {
    const { client, counted } = await signedIn();
    await client.logout();
    expect(client.getAccessToken()).toBeNull();
    expect(counted.count("/api/v1/auth/logout")).toBe(1);
    const error = await client.refresh().catch((e: unknown) => e);
    expect(errorCode(error)).toEqual({ code: "AUTH_REQUIRED", status: 401 });
  });

  it("refreshes ahead when the token expires within a quarter of its lifetime, so no call is refused", async () => {
    const counted = countingFetch();
    const client = createMtejaClient({ baseUrl: t.url, tenantId: "default", fetch: counted.fetch, now: () => clock.now().getTime() });
    await client.api.auth.register.mutate({ name: "Njeri Mwangi", email: uniqueEmail("ahead"), password: "correct horse battery" });
    const first = client.getAuthState();
    expect(first?.expiresAt!.getTime()! - first?.issuedAt!.getTime()!).toBe(60_000);

    clock.advance(40); // 20 s left of 60: not yet due (a quarter is 15 s)
    await client.api.profile.me.query();
    expect(counted.count("/api/v1/auth/refresh")).toBe(0);

    clock.advance(10); // 10 s left: due
    const trpcCallsBefore = counted.paths.filter((path) => path.startsWith("/trpc/")).length;
    await client.api.profile.me.query();
    expect(counted.count("/api/v1/auth/refresh")).toBe(1);
    expect(counted.paths.filter((path) => path.startsWith("/trpc/")).length - trpcCallsBefore).toBe(1);
    expect(client.getAuthState()?.accessToken).not.toBe(first?.accessToken);
  });

  it("reports sign-in state changes: signed in, refreshed, signed out", async () => {
    const client = createMtejaClient({ baseUrl: t.url, tenantId: "default" });
    const seen: Array<[AuthStateEvent, string | undefined]> = [];
    const stop = client.onAuthStateChange((event, state) => seen.push([event, state?.userId]));
    const registered = await client.api.auth.register.mutate({ name: "Njeri Mwangi", email: uniqueEmail("state"), password: "correct horse battery" });
    const userId = registered.data.user.id;
    await client.refresh();
    await client.logout();
    expect(seen).toEqual([
      ["SIGNED_IN", userId],
      ["TOKEN_REFRESHED", userId],
      ["SIGNED_OUT", undefined],
    ]);
    stop();
    await client.api.auth.register.mutate({ name: "Njeri Mwangi", email: uniqueEmail("state"), password: "correct horse battery" });
    expect(seen).toHaveLength(3);
  });

  it("narrows errors by code with isMtejaError, and types inputs and outputs", async () => {
    const { client } = await signedIn();
    const error = await client.api.auth.login.mutate({ email: "nobody@example.com", password: "wrong password" }).catch((e: unknown) => e);
    expect(isMtejaError(error)).toBe(true);
    expect(isMtejaError(error, "INVALID_OTP")).toBe(false);
    expect(isMtejaError(error, "INVALID_OTP", "INVALID_CREDENTIALS")).toBe(true);
    if (isMtejaError(error, "INVALID_CREDENTIALS")) {
      expectTypeOf(error.shape.error.code).toEqualTypeOf<"INVALID_CREDENTIALS">();
      expect(error.data.httpStatus).toBe(401);
    }
    expect(isMtejaError(new Error("not from the service"))).toBe(false);
    expectTypeOf<"INVALID_OTP">().toExtend<ErrorCode>();
    expectTypeOf<RouterInputs["addresses"]["create"]["county"]>().toEqualTypeOf<string>();
    // An account created by phone sign-in has no email.
    expectTypeOf<RouterOutputs["profile"]["me"]["data"]["email"]>().toEqualTypeOf<string | null>();
  });

  it("sends an Idempotency-Key with the call that names one, alone, and aborts a call by its signal", async () => {
    const seen: Array<{ path: string; key: string | null }> = [];
    const client = createMtejaClient({
      baseUrl: t.url,
      tenantId: "default",
      fetch: (input, init) => {
        const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
        seen.push({ path: new URL(url).pathname, key: new Headers(init?.headers).get("idempotency-key") });
        return fetch(input, init);
      },
    });
    await client.api.auth.register.mutate({ name: "Njeri Mwangi", email: uniqueEmail("keyed"), password: "correct horse battery" });
    await Promise.all([client.api.profile.me.query(), client.api.addresses.list.query(undefined, callOptions({ idempotencyKey: "order-1001" }))]);
    expect(seen.slice(-2).sort((a, b) => a.path.localeCompare(b.path))).toEqual([
      { path: "/trpc/addresses.list", key: "order-1001" },
      { path: "/trpc/profile.me", key: null },
    ]);

    const controller = new AbortController();
    controller.abort();
    const aborted = await client.api.profile.me.query(undefined, callOptions({ signal: controller.signal })).catch((e: unknown) => e);
    expect(aborted).toBeInstanceOf(TRPCClientError);
    expect((aborted as Error).message).toMatch(/abort/i);
  });

  it("withStepUp: a sensitive call refused with STEP_UP_REQUIRED is made again after reauthenticate with the user's proof", async () => {
    const { client, counted, email } = await signedIn();
    const exportData = () => client.api.dataRights.exportMyData.query();
    expect((await client.withStepUp(exportData, async () => null)).data.profile.email).toBe(email);
    // Past the window (STEP_UP_WINDOW_SECONDS, 300 by default); the expired access token is refreshed on the way, which does not make the session fresh.
    clock.advance(301);
    const asked: number[] = [];
    const cancelled = await client.withStepUp(exportData, async () => (asked.push(1), null)).catch((e: unknown) => e);
    expect(errorCode(cancelled)).toEqual({ code: "STEP_UP_REQUIRED", status: 403 });
    expect(isMtejaError(cancelled, "STEP_UP_REQUIRED")).toBe(true);
    const wrong = await client.withStepUp(exportData, async () => ({ password: "not the password" })).catch((e: unknown) => e);
    expect(errorCode(wrong)).toEqual({ code: "INVALID_CREDENTIALS", status: 401 });
    const exported = await client.withStepUp(exportData, async () => (asked.push(1), { password: "correct horse battery" }));
    expect(exported.data.profile.email).toBe(email);
    expect(asked).toHaveLength(2);
    expect(counted.count("/api/v1/auth/refresh")).toBe(1);
    expectTypeOf<RouterInputs["auth"]["reauthenticate"]>().toExtend<{ password?: string; sms_code?: string; code?: string }>();
  });

  it("does not refresh for errors that are not an expired token", async () => {
    const { client, counted } = await signedIn();
    const error = await client.api.addresses.update
      .mutate({ id: "00000000-0000-4000-8000-000000000000", label: "Home", recipient_name: "N", phone: "0712345678", street: "Moi Avenue", county: "nairobi" })
      .catch((e: unknown) => e);
    expect(errorCode(error)).toEqual({ code: "NOT_FOUND", status: 404 });
    expect(counted.count("/api/v1/auth/refresh")).toBe(0);
  });
});
