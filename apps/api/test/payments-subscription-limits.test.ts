/**
 * payments.onStatus is bounded: at most 5 open subscriptions per user (a 6th: 429 RATE_LIMITED), and a
 * subscription ends when the session it was opened in ends (logout, password change, role change).
 */
import { TRPCClientError } from "@trpc/client";
import { describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { adminKey, registerUser, RestClient } from "./support/app.js";
import { skipThisTarget } from "./support/database.js";
import type { DarajaApp } from "./support/daraja.js";
import { waitFor } from "./support/wait.js";
import { subscriptionClient } from "./support/subscriptions.js";

interface OpenSubscription {
  /** Resolves on the first event: "data" or "error". */
  first: Promise<"data" | "error">;
  /** Resolves when the subscription is over (error or completion), with the error if any. */
  ended: Promise<unknown>;
  unsubscribe(): void;
}

// The simulator accepts prompts and never calls back: payments stay PENDING and streams stay open.
it.override({ simOptions: { callbacks: false } });

describe.skipIf(skipThisTarget)("payments.onStatus limits", () => {
  let t: DarajaApp;
  it.beforeAll(async ({ momo }) => {
    t = momo;
  });

  function subscribe(token: string, checkoutRequestId: string): OpenSubscription {
    let resolveFirst!: (kind: "data" | "error") => void;
    let resolveEnded!: (error: unknown) => void;
    const first = new Promise<"data" | "error">((resolve) => (resolveFirst = resolve));
    const ended = new Promise<unknown>((resolve) => (resolveEnded = resolve));
    const subscription = subscriptionClient(t.url, token).payments.onStatus.subscribe(
      { checkoutRequestId },
      {
        onData: () => resolveFirst("data"),
        onError: (error) => {
          resolveFirst("error");
          resolveEnded(error);
        },
        onComplete: () => resolveEnded(undefined),
      },
    );
    return { first, ended, unsubscribe: () => subscription.unsubscribe() };
  }

  async function pendingPayment(token: string): Promise<string> {
    const pushed = await t.rest.post("/api/momo/stkpush", { phone: "0712345678", amount: 10 }, token);
    expect(pushed.status).toBe(200);
    return pushed.body.data.checkoutRequestId as string;
  }

  function expectError(error: unknown, code: string, status: number) {
    expect(error).toBeInstanceOf(TRPCClientError);
    expect((error as TRPCClientError<any>).shape.error.code).toBe(code);
    expect((error as TRPCClientError<any>).data.httpStatus).toBe(status);
  }

  it("lets a user hold 5 open subscriptions; the 6th is 429 RATE_LIMITED; closing one frees its place", async () => {
    const user = await t.customer();
    const checkoutRequestId = await pendingPayment(user.accessToken);
    const open = Array.from({ length: 5 }, () => subscribe(user.accessToken, checkoutRequestId));
    for (const subscription of open) expect(await subscription.first).toBe("data");

    const sixth = subscribe(user.accessToken, checkoutRequestId);
    expect(await sixth.first).toBe("error");
    expectError(await sixth.ended, "RATE_LIMITED", 429);
    expect((await sixth.ended as TRPCClientError<any>).data.retryAfter).toBeGreaterThan(0);

    // Another customer has places of their own.
    const other = await t.customer();
    const theirs = subscribe(other.accessToken, await pendingPayment(other.accessToken));
    expect(await theirs.first).toBe("data");
    theirs.unsubscribe();

    // A closed subscription gives its place back (once the server has seen the connection close).
    open[0]!.unsubscribe();
    const again = await waitFor(async () => {
      const attempt = subscribe(user.accessToken, checkoutRequestId);
      if ((await attempt.first) === "data") return attempt;
      return undefined;
    });
    for (const subscription of [...open.slice(1), again]) subscription.unsubscribe();
  });

  it("ends a subscription with INVALID_TOKEN when its session is logged out, and frees its place", async () => {
    const rest = new RestClient(t.url);
    const user = await registerUser(rest);
    const checkoutRequestId = await pendingPayment(user.accessToken);
    const subscriptions = Array.from({ length: 5 }, () => subscribe(user.accessToken, checkoutRequestId));
    for (const subscription of subscriptions) expect(await subscription.first).toBe("data");

    expect((await rest.post("/api/v1/auth/logout")).status).toBe(200);
    for (const subscription of subscriptions) expectError(await subscription.ended, "INVALID_TOKEN", 401);

    // The places are free again: a new session of the same user can open 5 subscriptions.
    const login = await new RestClient(t.url).post("/api/v1/auth/login", { email: user.email, password: user.password });
    const fresh = Array.from({ length: 5 }, () => subscribe(login.body.data.access_token, checkoutRequestId));
    for (const subscription of fresh) expect(await subscription.first).toBe("data");
    for (const subscription of fresh) subscription.unsubscribe();
  });

  it("ends the subscriptions of sessions a password change ends, and of every session on a role change", async () => {
    const user = await registerUser(new RestClient(t.url));
    const checkoutRequestId = await pendingPayment(user.accessToken);
    const signIn = async () => (await new RestClient(t.url).post("/api/v1/auth/login", { email: user.email, password: user.password })).body.data.access_token as string;

    // A password change keeps the session that made it and ends the others.
    const other = subscribe(await signIn(), checkoutRequestId);
    expect(await other.first).toBe("data");
    const changed = await t.rest.put("/api/v1/auth/me/password", { current_password: user.password, new_password: "another correct horse" }, user.accessToken);
    expect(changed.status).toBe(200);
    expectError(await other.ended, "INVALID_TOKEN", 401);

    // A role change ends every session of the user.
    const newPassword = "another correct horse";
    const token = (await new RestClient(t.url).post("/api/v1/auth/login", { email: user.email, password: newPassword })).body.data.access_token as string;
    const subscription = subscribe(token, checkoutRequestId);
    expect(await subscription.first).toBe("data");
    const promoted = await fetch(`${t.url}/api/v1/admin/users/${user.id}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${adminKey}`, "x-tenant-id": "default", "content-type": "application/json" },
      body: JSON.stringify({ role: "admin" }),
    });
    expect(promoted.status).toBe(200);
    expectError(await subscription.ended, "INVALID_TOKEN", 401);
  });
});
