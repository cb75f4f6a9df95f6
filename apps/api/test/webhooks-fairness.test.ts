/**
 * One shop cannot hold up another's webhooks (docs/webhooks.md#fairness): a shop whose 16 endpoints
 * hang floods the delivery queue with events and redeliveries, and another shop's payment.succeeded
 * still arrives within 5 s; the flooding shop never has more than WEBHOOK_TENANT_CONCURRENCY
 * deliveries in flight, nor an endpoint more than 2. Redeliver is limited per event and de-duplicated,
 * and skips disabled endpoints.
 */
import { afterEach, describe, expect } from "vitest";
import { skipThisTarget } from "./support/database.js";
import { it } from "./support/fixture.js";
import type { DarajaApp } from "./support/daraja.js";
import { createShop } from "./support/shop-daraja.js";
import { waitFor } from "./support/wait.js";
import { startHangingReceiver, startReceiver, type ReceivedDelivery } from "./support/webhook-receiver.js";
import { createApiKey, shopOf } from "./support/webhook-shop.js";

it.override({ simOptions: { callbackDelayMs: 50 } });

let t: DarajaApp;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const forPayment = (paymentId: string) => (delivery: ReceivedDelivery) => delivery.event.data.payment?.id === paymentId;

describe.skipIf(skipThisTarget)("webhook delivery is fair between tenants", () => {
  // The app starts in a hook (with its own time-out), not in the first test.
  it.beforeAll(async ({ momo }) => {
    t = momo;
  });

  it("delivers a shop's payment.succeeded within 5 s while another shop's 16 endpoints hang and it floods the queue", async () => {
    await createShop(t, "flood");
    const flood = shopOf(t, "flood", await createApiKey(t.url, "flood"));
    const shop = shopOf(t, "default", await createApiKey(t.url, "default"));

    const hanging = await startHangingReceiver();
    closers.push(() => hanging.close());
    for (let i = 0; i < 16; i += 1) await flood.addEndpoint(hanging.url(`hooks/${i}`), ["payment.succeeded"]);
    // The flood: 5 payments (16 deliveries each), then 4 redeliveries of the first event.
    const floodPayments: string[] = [];
    for (let i = 0; i < 5; i += 1) floodPayments.push(await flood.pay());
    const floodEvent = await flood.eventOf(floodPayments[0]!);
    for (let i = 0; i < 4; i += 1) expect((await flood.call("POST", `/api/v1/webhook-events/${floodEvent}/redeliver`)).status).toBe(200);
    await waitFor(async () => hanging.received.length >= 4);

    const hooks = await startReceiver();
    closers.push(() => hooks.close());
    await shop.addEndpoint(hooks.url);
    const paymentId = await shop.pay();
    const [delivery] = await hooks.waitFor(forPayment(paymentId), 1, 5_000);
    expect(delivery!.event).toMatchObject({ type: "payment.succeeded", tenant_id: "default" });

    // The flooding shop had at most WEBHOOK_TENANT_CONCURRENCY (4) deliveries in flight, an endpoint at most 2.
    const open = hanging.maxOpen();
    expect(open.total).toBeLessThanOrEqual(4);
    expect(open.perPath).toBeLessThanOrEqual(2);
  }, 60_000);
});

describe.skipIf(skipThisTarget)("redeliver", () => {
  // The app starts in a hook (with its own time-out), not in the first test.
  it.beforeAll(async ({ momo }) => {
    t = momo;
  });

  it("queues an event at most once per endpoint, skips disabled endpoints, and allows 10 per event per hour (429 with Retry-After)", async () => {
    await createShop(t, "redeliver");
    const shop = shopOf(t, "redeliver", await createApiKey(t.url, "redeliver"));
    const hanging = await startHangingReceiver();
    const hooks = await startReceiver();
    closers.push(() => hanging.close(), () => hooks.close());
    const stuck = await shop.addEndpoint(hanging.url("stuck"), ["payment.succeeded"]);
    await shop.addEndpoint(hooks.url, ["payment.succeeded"]);
    const paymentId = await shop.pay();
    await hooks.waitFor(forPayment(paymentId));
    await waitFor(async () => hanging.received.length >= 1);
    const eventId = await shop.eventOf(paymentId);
    const disabled = await shop.addEndpoint(hooks.url.replace("/hooks", "/disabled"), ["payment.succeeded"]);
    expect((await shop.call("PATCH", `/api/v1/webhook-endpoints/${disabled}`, { enabled: false })).status).toBe(200);

    // Two at once: the stuck endpoint's delivery is still pending (in flight), the healthy one's was delivered.
    const [first, second] = await Promise.all([1, 2].map(() => shop.call("POST", `/api/v1/webhook-events/${eventId}/redeliver`)));
    for (const answer of [first!, second!]) {
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body.data).toEqual({ id: eventId, deliveries: 2 });
    }
    const rows = await t.deps.db.unscoped("test").webhookDelivery.findMany({ where: { eventId } });
    const pending = (endpointId: string) => rows.filter((row) => row.endpointId === endpointId && row.status === "pending").length;
    expect(pending(stuck)).toBe(1);
    expect(rows.filter((row) => row.endpointId === disabled)).toEqual([]);
    await hooks.waitFor(forPayment(paymentId), 2);

    for (let i = 3; i <= 10; i += 1) expect((await shop.call("POST", `/api/v1/webhook-events/${eventId}/redeliver`)).status, `call ${i}`).toBe(200);
    const over = await shop.call("POST", `/api/v1/webhook-events/${eventId}/redeliver`);
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe("RATE_LIMITED");
    const retryAfter = Number(over.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    // Another event of the shop has its own count.
    const other = await shop.pay();
    expect((await shop.call("POST", `/api/v1/webhook-events/${await shop.eventOf(other)}/redeliver`)).status).toBe(200);
  });
});
