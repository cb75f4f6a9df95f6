/**
 * payments.onStatus: a tRPC 11 subscription over SSE (httpSubscriptionLink), pushing a payment's
 * status changes until it is terminal.
 */
import { TRPCClientError } from "@trpc/client";
import { describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { skipThisTarget } from "./support/database.js";
import type { DarajaApp } from "./support/daraja.js";
import type { Simulator } from "./support/simulator.js";
import { subscriptionClient } from "./support/subscriptions.js";

describe.skipIf(skipThisTarget)("payments.onStatus subscription", () => {
  let sim: Simulator;
  let t: DarajaApp;
  it.beforeAll(async ({ launch }) => {
    sim = await launch.sim({ callbackDelayMs: 400 });
    t = await launch.momo({ darajaUrl: sim.url });
  });

  it("delivers PENDING, then SUCCESS when the callback lands, then ends", async () => {
    const user = await t.customer();
    const client = subscriptionClient(t.url, user.accessToken);
    const pushed = await client.payments.stkPush.mutate({ phone: "0712000111", amount: 50 });
    const seen: string[] = [];
    const done = new Promise<void>((resolve, reject) => {
      const subscription = client.payments.onStatus.subscribe(
        { checkoutRequestId: pushed.data.checkoutRequestId! },
        {
          onData: (update) => {
            seen.push(update.status);
            if (update.status !== "PENDING") {
              expect(update).toMatchObject({ checkoutRequestId: pushed.data.checkoutRequestId, resultCode: "0" });
              subscription.unsubscribe();
              resolve();
            }
          },
          onError: reject,
        },
      );
    });
    await done;
    expect(seen).toEqual(["PENDING", "SUCCESS"]);
  });

  it("answers NOT_FOUND for another customer's payment", async () => {
    const owner = await t.customer();
    const other = await t.customer();
    const pushed = await subscriptionClient(t.url, owner.accessToken).payments.stkPush.mutate({ phone: "0712000112", amount: 50 });
    const error = await new Promise<unknown>((resolve) => {
      subscriptionClient(t.url, other.accessToken).payments.onStatus.subscribe(
        { checkoutRequestId: pushed.data.checkoutRequestId! },
        { onData: () => resolve(new Error("unexpected data")), onError: resolve },
      );
    });
    expect(error).toBeInstanceOf(TRPCClientError);
    expect((error as TRPCClientError<any>).shape.error).toEqual({ code: "NOT_FOUND" });
    expect((error as TRPCClientError<any>).data.httpStatus).toBe(404);
  });

  it("sees a change committed by another instance (no in-process event) through its database re-check", async () => {
    const user = await t.customer();
    // The prompt is never answered: only the direct database change can settle it.
    await sim.nextOutcome("no_callback");
    const client = subscriptionClient(t.url, user.accessToken);
    const pushed = await client.payments.stkPush.mutate({ phone: "0712000113", amount: 50 });
    const seen: string[] = [];
    const started = Date.now();
    await new Promise<void>((resolve, reject) => {
      const subscription = client.payments.onStatus.subscribe(
        { checkoutRequestId: pushed.data.checkoutRequestId! },
        {
          onData: (update) => {
            seen.push(update.status);
            if (update.status === "PENDING") {
              // What another instance's settlement looks like from here: a committed row, no event.
              t.deps.db.unscoped("test").payment.update({ where: { checkoutRequestId: pushed.data.checkoutRequestId! }, data: { status: "CANCELLED", resultCode: "1032" } }).catch(reject);
            } else {
              subscription.unsubscribe();
              resolve();
            }
          },
          onError: reject,
        },
      );
    });
    expect(seen).toEqual(["PENDING", "CANCELLED"]);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("needs an access token", async () => {
    const error = await new Promise<unknown>((resolve) => {
      subscriptionClient(t.url, "not-a-token").payments.onStatus.subscribe({ checkoutRequestId: "ws_CO_x" }, { onData: () => resolve(new Error("unexpected data")), onError: resolve });
    });
    expect((error as TRPCClientError<any>).shape.error.code).toBe("INVALID_TOKEN");
  });
});
