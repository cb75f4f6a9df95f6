/** The payment-status subscription through @mteja/client: typed, authenticated by header, refreshed when expired. */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import { startTestApp, uniqueEmail, type TestApp } from "@mteja/test-support/app";
import { testClock } from "@mteja/test-support/clock";
import { createMtejaClient, TRPCClientError, type MtejaClient } from "../src/index.js";

interface Update {
  checkoutRequestId: string;
  status: string;
}

describe("payments.onStatus through the client", () => {
  let t: TestApp;
  const clock = testClock();
  beforeAll(async () => {
    t = await startTestApp({ ACCESS_TOKEN_TTL_SECONDS: "60" }, { now: clock.now });
  });
  afterAll(async () => t?.close());

  async function customerWithPayment(counting?: string[]) {
    const client = createMtejaClient({
      baseUrl: t.url,
      tenantId: "default",
      fetch: (input, init) => {
        counting?.push(new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url).pathname);
        return fetch(input, init);
      },
    });
    const registered = await client.api.auth.register.mutate({ name: "Otieno Ouma", email: uniqueEmail("sub"), password: "correct horse battery" });
    const checkoutRequestId = `ws_CO_${randomBytes(8).toString("hex")}`;
    const payment = await t.deps.db.unscoped("test").payment.create({
      data: { tenantId: "default", userId: registered.data.user.id, phone: "254712345678", amount: 100, reference: "ORDER", description: "Payment", status: "PENDING", checkoutRequestId },
    });
    return { client, payment, checkoutRequestId };
  }

  /** Subscribes and collects updates until the stream completes or fails. */
  function follow(client: MtejaClient, checkoutRequestId: string, onFirst: () => void) {
    const updates: Update[] = [];
    const ended = new Promise<void>((resolve, reject) => {
      client.api.payments.onStatus.subscribe(
        { checkoutRequestId },
        {
          onData(update) {
            expectTypeOf(update.status).toEqualTypeOf<"PENDING" | "SUCCESS" | "FAILED" | "CANCELLED" | "TIMEOUT">();
            updates.push(update);
            if (updates.length === 1) onFirst();
          },
          onError: reject,
          onComplete: () => resolve(),
        },
      );
    });
    return { updates, ended };
  }

  async function settle(paymentId: string, checkoutRequestId: string) {
    await t.deps.db.unscoped("test").payment.update({ where: { id: paymentId }, data: { status: "SUCCESS", resultCode: "0", resultDesc: "Paid" } });
    t.deps.daraja.events.emit({ paymentId, tenantId: "default", checkoutRequestId, status: "SUCCESS" });
  }

  it("streams the status now and every change until it is final", async () => {
    const { client, payment, checkoutRequestId } = await customerWithPayment();
    const { updates, ended } = follow(client, checkoutRequestId, () => void settle(payment.id, checkoutRequestId));
    await ended;
    expect(updates.map((u) => u.status)).toEqual(["PENDING", "SUCCESS"]);
    expect(updates[0]!.checkoutRequestId).toBe(checkoutRequestId);
  });

  it("refreshes an expired token before subscribing", async () => {
    const paths: string[] = [];
    const { client, payment, checkoutRequestId } = await customerWithPayment(paths);
    clock.advance(61);
    const { updates, ended } = follow(client, checkoutRequestId, () => void settle(payment.id, checkoutRequestId));
    await ended;
    expect(updates.map((u) => u.status)).toEqual(["PENDING", "SUCCESS"]);
    expect(paths.filter((p) => p === "/api/v1/auth/refresh")).toHaveLength(1);
  });

  it("fails with NOT_FOUND for another customer's payment", async () => {
    const { checkoutRequestId } = await customerWithPayment();
    const { client: stranger } = await customerWithPayment();
    const error = await follow(stranger, checkoutRequestId, () => undefined).ended.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TRPCClientError);
    expect((error as TRPCClientError<never>).data).toMatchObject({ httpStatus: 404 });
  });
});
