/**
 * The per-user cap on open payments.onStatus subscriptions is one cap for the whole service when Redis
 * is configured (docs/deployment.md#shared-caps): subscriptions on two instances count together.
 * Counted in Redis, never in the database: run once, on the embedded database (two instances in one
 * process share it).
 */
import { TRPCClientError } from "@trpc/client";
import { randomBytes } from "node:crypto";
import { describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { skipThisTarget, target } from "./support/database.js";
import { dropRedisKeys, redisKeys, redisUrl, skipRedis, uniqueRedisPrefix } from "./support/limits.js";
import type { DarajaApp } from "./support/daraja.js";
import { subscriptionClient } from "./support/subscriptions.js";
import { waitFor } from "./support/wait.js";

// The simulator accepts prompts and never calls back: payments stay PENDING and streams stay open.
it.override({ simOptions: { callbacks: false } });

interface OpenSubscription {
  /** Resolves on the first event: "data" or "error". */
  first: Promise<"data" | "error">;
  /** Resolves when the subscription is over, with the error if any. */
  ended: Promise<unknown>;
  unsubscribe(): void;
}

function subscribe(url: string, token: string, checkoutRequestId: string): OpenSubscription {
  let resolveFirst!: (kind: "data" | "error") => void;
  let resolveEnded!: (error: unknown) => void;
  const first = new Promise<"data" | "error">((resolve) => (resolveFirst = resolve));
  const ended = new Promise<unknown>((resolve) => (resolveEnded = resolve));
  const subscription = subscriptionClient(url, token).payments.onStatus.subscribe(
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

const skipHere = skipThisTarget || target !== "embedded" || skipRedis;

describe.skipIf(skipHere)("the subscription cap across two instances (REDIS_URL)", () => {
  const prefix = uniqueRedisPrefix();
  let a: DarajaApp;
  let b: DarajaApp;
  it.beforeAll(async ({ sim, launch }) => {
    const env = { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: prefix, DATA_ENCRYPTION_KEY: randomBytes(32).toString("hex") };
    a = await launch.momo({ darajaUrl: sim.url, env });
    b = await launch.momo({ darajaUrl: sim.url, env, database: a.database });
  });
  it.afterAll(async () => {
    await dropRedisKeys(prefix);
  });

  it("counts a user's subscriptions on A and B together: a 6th is 429 on either; closing one frees one", async () => {
    const user = await a.customer();
    const pushed = await a.rest.post("/api/momo/stkpush", { phone: "0712345678", amount: 10 }, user.accessToken);
    expect(pushed.status).toBe(200);
    const checkoutRequestId = pushed.body.data.checkoutRequestId as string;

    const open = [a, a, a, b, b].map((app) => subscribe(app.url, user.accessToken, checkoutRequestId));
    for (const subscription of open) expect(await subscription.first).toBe("data");
    for (const app of [b, a]) {
      const sixth = subscribe(app.url, user.accessToken, checkoutRequestId);
      expect(await sixth.first).toBe("error");
      const error = (await sixth.ended) as TRPCClientError<any>;
      expect(error).toBeInstanceOf(TRPCClientError);
      expect(error.data.httpStatus).toBe(429);
      expect(error.shape.error.code).toBe("RATE_LIMITED");
    }
    // The places are kept in Redis, under this deployment's prefix.
    expect((await redisKeys(prefix)).some((key) => key.startsWith(`${prefix}:status-streams:`))).toBe(true);

    // A subscription closed on A gives its place back to the user on B.
    open[0]!.unsubscribe();
    const again = await waitFor(async () => {
      const attempt = subscribe(b.url, user.accessToken, checkoutRequestId);
      return (await attempt.first) === "data" ? attempt : undefined;
    });
    for (const subscription of [...open.slice(1), again]) subscription.unsubscribe();
  });
});
