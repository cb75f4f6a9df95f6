/**
 * A prompt's plain statements (repositories/payments.ts: createPrompt, createPromptForIntent,
 * storePromptAck) keep the scope the tenant's client adds, and write what Prisma would have: the
 * payment in its client's tenant and mode, its intent started in the same statement or nothing stored,
 * and Daraja's ids stored once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { intents, payments, TenantScopeViolation, type Database } from "../src/index.js";
import { databaseTargets } from "./support/databases.js";

const targets = await databaseTargets("mteja_test", 2);
const at = new Date("2026-11-29T08:00:00.000Z");
const later = new Date(at.getTime() + 60_000);
/** The due-intent look a create answers beside the insert. */
const due = { from: ["requires_payment"], at };

for (const target of targets) {
  describe.skipIf(target.skip)(`a prompt's plain statements (${target.name})`, () => {
    let db: Database;
    let drop: () => Promise<void>;
    let userA: string;
    const live = (tenantId: string) => db.forTenant(tenantId, { livemode: true });
    const test = (tenantId: string) => db.forTenant(tenantId, { livemode: false });
    const prompt = (overrides: Partial<payments.NewPrompt> = {}): payments.NewPrompt => ({
      id: crypto.randomUUID(),
      tenantId: "shop-a",
      userId: userA,
      livemode: true,
      phone: "254712345678",
      amount: 100,
      reference: "ORDER1",
      description: "Payment",
      idempotencyKey: null,
      callbackTokenForm: "tenant",
      nextQueryAt: later,
      createdAt: at,
      ...overrides,
    });
    const newIntent = (id: string, tenantId: string, expiresAt = later) => ({
      id, tenantId, amount: 100, reference: id, description: null, userId: null, metadata: {}, idempotencyKey: null, requestHash: null,
      status: "requires_payment", expiresAt, createdAt: at,
    });
    const start = (intentId: string) => ({ intentId, from: ["requires_payment"], to: "processing" });
    const intentStatus = async (id: string) => (await db.unscoped("test").paymentIntent.findUniqueOrThrow({ where: { id } })).status;

    beforeAll(async () => {
      ({ db, drop } = await target.open());
      await db.migrate();
      await db.unscoped("test").tenant.createMany({ data: [{ id: "shop-a", name: "A" }, { id: "shop-b", name: "B" }] });
      userA = (await db.unscoped("test").user.create({ data: { tenantId: "shop-a", email: "a@example.com" } })).id;
      await intents.create(live("shop-a"), newIntent("pi_a", "shop-a"), due);
      await intents.create(test("shop-a"), newIntent("pi_test_a", "shop-a"), due);
      await intents.create(live("shop-b"), newIntent("pi_b", "shop-b"), due);
      await intents.create(live("shop-a"), newIntent("pi_expired", "shop-a", at), due);
    });
    afterAll(() => drop?.());

    it("stores a prompt as Prisma reads it back, in its client's tenant and mode", async () => {
      const stored = await payments.createPrompt(live("shop-a"), prompt());
      expect(stored).toEqual(await db.unscoped("test").payment.findUniqueOrThrow({ where: { id: stored.id } }));
      expect(stored).toMatchObject({ status: "PENDING", livemode: true, intentId: null, updatedAt: at, checkoutRequestId: null, channel: "stk" });
      await expect(payments.createPrompt(live("shop-a"), prompt({ tenantId: "shop-b" }))).rejects.toThrow(TenantScopeViolation);
      await expect(payments.createPrompt(test("shop-a"), prompt())).rejects.toThrow(TenantScopeViolation);
      await expect(payments.createPrompt(db.unscoped("test") as never, prompt())).rejects.toThrow(TenantScopeViolation);
    });

    it("stores a prompt for an intent only while the same statement starts that intent", async () => {
      expect(await payments.createPromptForIntent(live("shop-a"), prompt(), start("pi_b"))).toBeUndefined();
      expect(await payments.createPromptForIntent(live("shop-a"), prompt(), start("pi_test_a"))).toBeUndefined();
      expect(await payments.createPromptForIntent(db.forTenant("shop-a"), prompt(), start("pi_test_a"))).toBeUndefined();
      expect(await payments.createPromptForIntent(live("shop-a"), prompt(), start("pi_expired"))).toBeUndefined();
      expect(await intentStatus("pi_b")).toBe("requires_payment");
      expect(await intentStatus("pi_test_a")).toBe("requires_payment");

      const paying = await payments.createPromptForIntent(db.forTenant("shop-a"), prompt(), start("pi_a"));
      expect(paying).toMatchObject({ intentId: "pi_a", livemode: true, tenantId: "shop-a" });
      expect(paying).toEqual(await db.unscoped("test").payment.findUniqueOrThrow({ where: { id: paying!.id } }));
      expect(await intentStatus("pi_a")).toBe("processing");
      // Started once: a second prompt finds it processing.
      expect(await payments.createPromptForIntent(live("shop-a"), prompt(), start("pi_a"))).toBeUndefined();
      expect(await db.unscoped("test").payment.count({ where: { intentId: "pi_a" } })).toBe(1);
    });

    it("starts nothing when the payment is refused by its Idempotency-Key's unique index", async () => {
      await intents.create(live("shop-a"), newIntent("pi_keyed", "shop-a"), due);
      await payments.createPrompt(live("shop-a"), prompt({ idempotencyKey: "key-1" }));
      await expect(payments.createPromptForIntent(live("shop-a"), prompt({ idempotencyKey: "key-1" }), start("pi_keyed"))).rejects.toMatchObject({ code: "23505" });
      expect(await intentStatus("pi_keyed")).toBe("requires_payment");
    });

    it("stores Daraja's ids once, and only for its client's payment", async () => {
      const stored = await payments.createPrompt(live("shop-a"), prompt());
      const ack = (checkoutRequestId: string) => ({ id: stored.id, checkoutRequestId, merchantRequestId: "m-1", at: later });
      expect(await payments.storePromptAck(live("shop-b"), ack("ws_CO_other"))).toBeUndefined();
      expect(await payments.storePromptAck(test("shop-a"), ack("ws_CO_other"))).toBeUndefined();
      expect(await payments.storePromptAck(live("shop-a"), ack("ws_CO_1"))).toEqual({ stored: true, status: "PENDING", checkoutRequestId: "ws_CO_1" });
      expect(await payments.storePromptAck(db.forTenant("shop-a"), ack("ws_CO_2"))).toEqual({ stored: false, status: "PENDING", checkoutRequestId: "ws_CO_1" });
      expect(await db.unscoped("test").payment.findUniqueOrThrow({ where: { id: stored.id } })).toMatchObject({ checkoutRequestId: "ws_CO_1", merchantRequestId: "m-1", updatedAt: later });
    });
  });
}
