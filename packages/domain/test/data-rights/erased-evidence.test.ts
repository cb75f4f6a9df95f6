/**
 * The erasure's evidence passes in batches (data-rights/erased-evidence.ts), with a batch of 2 so every
 * loop turns several times: each reaches every row of the customer's, stops, and leaves alone the rows
 * that look like theirs but are not (another customer's payment from the same phone keeps matching the
 * search, so the events' pass must move past it rather than read it again for ever).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { erasedEvidenceOf, maskErasedEvidence } from "../../src/data-rights/erased-evidence.js";
import type { TenantCtx } from "../../src/trpc.js";
import { createServiceDeps, defaultTenantId, type ServiceDeps } from "../support/caller.js";

describe("the erasure's evidence passes, in batches", () => {
  let service: ServiceDeps;
  beforeAll(async () => {
    service = await createServiceDeps();
  });
  afterAll(() => service?.close());

  const phone = "254712000333";
  const masked = "254******333";

  it("masks every row of the customer's in batches, and only theirs", async () => {
    const db = service.deps.db.unscoped("test");
    const now = service.deps.clock.now();
    const user = await db.user.create({ data: { tenantId: defaultTenantId, email: "batches@example.com", phone, createdAt: now } });
    const other = await db.user.create({ data: { tenantId: defaultTenantId, email: "someone-else@example.com", createdAt: now } });
    const payment = (userId: string, n: number) =>
      db.payment.create({ data: { tenantId: defaultTenantId, userId, phone, amount: 10, reference: `R${n}`, description: "x", status: "SUCCESS", checkoutRequestId: `ws_CO_batches_${userId.slice(0, 4)}_${n}`, createdAt: now } });
    const mine = [await payment(user.id, 1), await payment(user.id, 2), await payment(user.id, 3)];
    const theirs = await payment(other.id, 4);

    // Events about their payments interleaved with events about the other customer's (same phone).
    const body = (paymentId: string) => JSON.stringify({ id: "evt", type: "payment.succeeded", data: { payment: { id: paymentId, phone } } });
    const events: { id: string; paymentId: string }[] = [];
    for (let i = 0; i < 9; i += 1) {
      const paymentId = i % 3 === 1 ? theirs.id : mine[i % 3 === 0 ? 0 : 2]!.id;
      const id = `evt_batches_${i}`;
      await db.webhookEvent.create({ data: { id, tenantId: defaultTenantId, type: "payment.succeeded", body: body(paymentId), createdAt: new Date(now.getTime() + (i % 4) * 1000) } });
      events.push({ id, paymentId });
    }
    // Five texts sent to them, one not sent yet (the transaction deletes those), one in another shop's name would be another tenant's.
    for (let i = 0; i < 5; i += 1) await db.smsOutbox.create({ data: { tenantId: defaultTenantId, kind: "phone_code", toPhone: `+${phone}`, body: `${i}00000 is your code`, sentAt: now, createdAt: now } });
    const unsent = await db.smsOutbox.create({ data: { tenantId: defaultTenantId, kind: "phone_code", toPhone: `+${phone}`, body: "999999 is your code", createdAt: now } });
    // Five callbacks of their first payment (a result sent again and again), one of the other customer's.
    const stk = (checkoutRequestId: string) => JSON.stringify({ Body: { stkCallback: { CheckoutRequestID: checkoutRequestId, CallbackMetadata: { Item: [{ Name: "PhoneNumber", Value: Number(phone) }] } } } });
    for (let i = 0; i < 5; i += 1) {
      await db.darajaCallback.create({ data: { kind: "stkpush", rawBody: stk(mine[0]!.checkoutRequestId!), receivedAt: now, outcome: "duplicate", correlationId: mine[0]!.checkoutRequestId } });
    }
    await db.darajaCallback.create({ data: { kind: "stkpush", rawBody: stk(theirs.checkoutRequestId!), receivedAt: now, outcome: "applied", correlationId: theirs.checkoutRequestId } });

    const tenant = await db.tenant.findUniqueOrThrow({ where: { id: defaultTenantId } });
    const ctx = { deps: service.deps, tenant, db: service.deps.db.forTenant(defaultTenantId) } as unknown as TenantCtx;
    const evidence = await erasedEvidenceOf(ctx, user);
    expect(evidence).toMatchObject({ paymentPhones: [phone], accountPhones: [phone] });
    expect([...evidence.paymentIds].sort()).toEqual(mine.map((p) => p.id).sort());
    await maskErasedEvidence(ctx, evidence, { batchSize: 2 });

    for (const event of events) {
      const row = await db.webhookEvent.findUniqueOrThrow({ where: { id: event.id } });
      expect(JSON.parse(row.body).data.payment.phone, event.id).toBe(event.paymentId === theirs.id ? phone : masked);
    }
    const texts = await db.smsOutbox.findMany({ where: { tenantId: defaultTenantId, sentAt: { not: null }, body: { contains: "00000 is your code" } } });
    expect(texts.map((text) => text.toPhone)).toEqual(Array(5).fill(masked));
    expect((await db.smsOutbox.findUniqueOrThrow({ where: { id: unsent.id } })).toPhone).toBe(`+${phone}`);
    const callbacks = await db.darajaCallback.findMany({ where: { correlationId: { in: [mine[0]!.checkoutRequestId!, theirs.checkoutRequestId!] } } });
    expect(callbacks.filter((c) => c.correlationId === mine[0]!.checkoutRequestId).map((c) => JSON.parse(c.rawBody).Body.stkCallback.CallbackMetadata.Item[0].Value)).toEqual(Array(5).fill(masked));
    expect(callbacks.find((c) => c.correlationId === theirs.checkoutRequestId)!.rawBody).toContain(phone);
  });
});
