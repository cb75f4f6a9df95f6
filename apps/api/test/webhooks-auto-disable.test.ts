/**
 * An endpoint whose every delivery has failed for WEBHOOK_DISABLE_AFTER_SECONDS (3 days) is disabled
 * with `disabled_reason: "failing"` (docs/webhooks.md#endpoints-that-keep-failing), driven by the
 * injected clock: what it was owed is dropped, new events are recorded but not sent to it, the log
 * warns (without the URL's query), and once PATCH enables it again an event can be redelivered to it.
 * One success within the 3 days starts the count again.
 */
import { Writable } from "node:stream";
import { afterAll, describe, expect } from "vitest";
import { testClock } from "./support/clock.js";
import { skipThisTarget } from "./support/database.js";
import { it } from "./support/fixture.js";
import type { DarajaApp } from "./support/daraja.js";
import { waitFor } from "./support/wait.js";
import { startReceiver, type ReceivedDelivery, type Receiver } from "./support/webhook-receiver.js";
import { createApiKey, shopOf } from "./support/webhook-shop.js";

const clock = testClock();
const logLines: string[] = [];
const logStream = new Writable({
  write(chunk: Buffer, _encoding, done) {
    logLines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
    done();
  },
});
it.override({
  simOptions: { callbackDelayMs: 50 },
  // One retry, at once: each event's delivery is final within a moment.
  darajaOptions: { now: clock.now, logStream, env: { WEBHOOK_RETRY_SCHEDULE: "0", LOG_LEVEL: "warn" } },
});

const threeDays = 259_200;
const forPayment = (paymentId: string) => (delivery: ReceivedDelivery) => delivery.event.data.payment?.id === paymentId;

describe.skipIf(skipThisTarget)("an endpoint that keeps failing", () => {
  let t: DarajaApp;
  const receivers: Receiver[] = [];
  it.beforeAll(async ({ momo }) => {
    t = momo;
  });
  afterAll(async () => {
    await Promise.all(receivers.map((receiver) => receiver.close()));
  });

  it("is disabled after 3 days of failures only, gets nothing more, and takes a redelivery once enabled again", async () => {
    const shop = shopOf(t, "default", await createApiKey(t.url, "default"));
    const status = { failing: 500, flaky: 500 };
    const failing = await startReceiver(() => ({ status: status.failing }));
    const flaky = await startReceiver(() => ({ status: status.flaky }));
    const healthy = await startReceiver();
    receivers.push(failing, flaky, healthy);
    const failingId = await shop.addEndpoint(`${failing.url}?token=receiver-secret-123`, ["payment.succeeded"]);
    const flakyId = await shop.addEndpoint(flaky.url, ["payment.succeeded"]);
    await shop.addEndpoint(healthy.url, ["payment.succeeded"]);
    const endpoint = async (id: string) => (await shop.call("GET", "/api/v1/webhook-endpoints?limit=100")).body.data.webhook_endpoints.find((e: { id: string }) => e.id === id);
    /** A payment whose event every endpoint is done with (delivered, failed for good or dropped). */
    const settledPayment = async () => {
      const paymentId = await shop.pay();
      const eventId = await shop.eventOf(paymentId);
      await waitFor(async () => (await t.deps.db.unscoped("test").webhookDelivery.count({ where: { eventId, status: "pending" } })) === 0);
      return { paymentId, eventId };
    };

    // Day 0: both fail (two attempts each). Day 2: the flaky one answers once.
    const first = await settledPayment();
    expect(failing.received.filter(forPayment(first.paymentId))).toHaveLength(2);
    clock.advance(2 * 86_400);
    status.flaky = 200;
    await settledPayment();
    status.flaky = 500;

    // Just short of 3 days after the first failure: still enabled.
    clock.advance(threeDays - 2 * 86_400 - 60);
    await settledPayment();
    expect(await endpoint(failingId)).toMatchObject({ enabled: true, disabled_reason: null });

    // 3 days: the failing one is disabled by its next failure, and what it was owed is dropped.
    clock.advance(120);
    const disabling = await settledPayment();
    expect(await endpoint(failingId)).toMatchObject({ enabled: false, disabled_reason: "failing" });
    expect(await endpoint(flakyId)).toMatchObject({ enabled: true, disabled_reason: null });
    expect(failing.received.filter(forPayment(disabling.paymentId))).toHaveLength(1);
    const owed = await t.deps.db.unscoped("test").webhookDelivery.findMany({ where: { eventId: disabling.eventId, endpointId: failingId } });
    expect(owed.map((row) => row.status)).toEqual(["dropped"]);
    const warning = logLines.map((line) => JSON.parse(line)).find((entry) => entry.msg?.includes("webhook endpoint disabled"));
    expect(warning).toMatchObject({ level: 40, endpointId: failingId, tenantId: "default" });
    expect(logLines.join("\n")).not.toContain("receiver-secret-123");

    // Disabled: the next event is recorded (listed), sent to the others, not to it.
    status.failing = 200;
    const later = await settledPayment();
    await healthy.waitFor(forPayment(later.paymentId));
    expect(failing.received.filter(forPayment(later.paymentId))).toEqual([]);
    expect(await t.deps.db.unscoped("test").webhookDelivery.count({ where: { eventId: later.eventId, endpointId: failingId } })).toBe(0);

    // Enabled again by PATCH (the reason cleared): the event can be redelivered to it.
    const enabled = await shop.call("PATCH", `/api/v1/webhook-endpoints/${failingId}`, { enabled: true });
    expect(enabled.status).toBe(200);
    expect(enabled.body.data).toMatchObject({ id: failingId, enabled: true, disabled_reason: null });
    const redelivered = await shop.call("POST", `/api/v1/webhook-events/${later.eventId}/redeliver`);
    expect(redelivered.status).toBe(200);
    await failing.waitFor(forPayment(later.paymentId));
  }, 60_000);

  it("a manual disable has no reason", async () => {
    const shop = shopOf(t, "default", await createApiKey(t.url, "default"));
    const id = await shop.addEndpoint("http://127.0.0.1:9/manual");
    const patched = await shop.call("PATCH", `/api/v1/webhook-endpoints/${id}`, { enabled: false });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ enabled: false, disabled_reason: null });
  });
});
