/**
 * The intent statements a checkout runs as plain SQL (repositories/intents.ts) keep the scope the tenant's
 * client adds: another tenant's intents and the other mode's are neither read nor counted, a new intent
 * takes its client's mode, and a statement that needs a tenant refuses the unscoped door.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { intents, TenantScopeViolation, type Database } from "../src/index.js";
import { databaseTargets } from "./support/databases.js";

const targets = await databaseTargets("mteja_test", 2);
const at = new Date("2026-11-29T08:00:00.000Z");
const open = ["requires_payment", "processing"];
/** The due-intent look a create answers beside the insert. */
const due = { from: ["requires_payment"], at };

const intent = (id: string, tenantId: string, reference: string, expiresAt = new Date(at.getTime() + 60_000)) => ({
  id,
  tenantId,
  amount: 100,
  reference,
  description: null,
  userId: null,
  metadata: { order: "42" },
  idempotencyKey: null,
  requestHash: null,
  status: "requires_payment",
  expiresAt,
  createdAt: at,
});

for (const target of targets) {
  describe.skipIf(target.skip)(`the checkout's plain intent statements (${target.name})`, () => {
    let db: Database;
    let drop: () => Promise<void>;
    const live = (tenantId: string) => db.forTenant(tenantId, { livemode: true });
    const test = (tenantId: string) => db.forTenant(tenantId, { livemode: false });

    beforeAll(async () => {
      ({ db, drop } = await target.open());
      await db.migrate();
      await db.unscoped("test").tenant.createMany({ data: [{ id: "shop-a", name: "A" }, { id: "shop-b", name: "B" }] });
      await intents.create(test("shop-a"), intent("pi_test_a", "shop-a", "ORDER1", new Date(at.getTime() - 1000)), due);
      await intents.create(live("shop-b"), intent("pi_live_b", "shop-b", "ORDER2", new Date(at.getTime() - 1000)), due);
    });
    afterAll(() => drop?.());

    it("stores a new intent in its client's mode, as Prisma reads it back", async () => {
      const { intent: created, anyDue } = await intents.create(live("shop-a"), intent("pi_live_a", "shop-a", "ORDER3"), due);
      expect(created.payments).toEqual([]);
      // shop-a has no live intent due; its test-mode one is another mode's.
      expect(anyDue).toBe(false);
      expect((await intents.create(test("shop-a"), intent("pi_test_a2", "shop-a", "ORDER3"), due)).anyDue).toBe(true);
      const stored = await db.unscoped("test").paymentIntent.findUniqueOrThrow({ where: { id: "pi_live_a" } });
      expect({ ...created, payments: undefined }).toEqual({ ...stored, payments: undefined });
      expect(stored.livemode).toBe(true);
      expect((await db.unscoped("test").paymentIntent.findUniqueOrThrow({ where: { id: "pi_test_a" } })).livemode).toBe(false);
    });

    it("reads an intent only through its own tenant's client of its own mode (or of both)", async () => {
      expect(await intents.findRowAndAnyDue(test("shop-a"), "pi_test_a", due)).toMatchObject({ intent: { metadata: { order: "42" } }, anyDue: true });
      expect((await intents.findRowAndAnyDue(db.forTenant("shop-a"), "pi_test_a", due)).intent).not.toBeNull();
      expect(await intents.findRowAndAnyDue(live("shop-a"), "pi_test_a", due)).toEqual({ intent: null, anyDue: false });
      expect(await intents.findRowAndAnyDue(test("shop-b"), "pi_test_a", due)).toEqual({ intent: null, anyDue: false });
      // Its own tenant and mode's due intents only: shop-a's live intent is not due, shop-b's live one is.
      expect(await intents.findRowAndAnyDue(live("shop-a"), "pi_live_a", due)).toMatchObject({ intent: { id: "pi_live_a" }, anyDue: false });
    });

    it("looks for due intents and open references in its tenant and mode only", async () => {
      expect(await intents.anyDue(test("shop-a"), { from: ["requires_payment"], at })).toBe(true);
      expect(await intents.anyDue(live("shop-a"), { from: ["requires_payment"], at })).toBe(false);
      expect(await intents.anyDue(test("shop-b"), { from: ["requires_payment"], at })).toBe(false);
      // An open intent's reference is its mode's alone (the unique index the create relies on).
      await expect(intents.create(test("shop-a"), intent("pi_same_ref", "shop-a", "order1"), due)).rejects.toMatchObject({ code: "23505" });
      await intents.create(live("shop-a"), intent("pi_same_ref_live", "shop-a", "order1"), due);
    });

    it("reads a settled intent with its payments and their refunds in one statement, as Prisma's include does", async () => {
      const sql = db.unscoped("test");
      await intents.create(live("shop-b"), intent("pi_paid_b", "shop-b", "ORDER9"), due);
      await sql.paymentIntent.update({ where: { id: "pi_paid_b" }, data: { status: "succeeded" } });
      const paymentOf = (n: number) => ({ tenantId: "shop-b", phone: "254712345678", amount: 100, reference: "ORDER9", description: "Payment", intentId: "pi_paid_b", createdAt: new Date(at.getTime() + n * 1000) });
      const first = await sql.payment.create({ data: { ...paymentOf(1), status: "FAILED" } });
      const second = await sql.payment.create({ data: { ...paymentOf(2), status: "SUCCESS", mpesaReceipt: "RCPT9" } });
      const refundOf = (n: number) => ({ tenantId: "shop-b", paymentId: second.id, amount: 10 * n, method: "b2c", requestedBy: "test", createdAt: new Date(at.getTime() + n * 60_000) });
      await sql.refund.create({ data: refundOf(1) });
      await sql.refund.create({ data: refundOf(2) });
      const expected = await sql.paymentIntent.findUniqueOrThrow({
        where: { id: "pi_paid_b" },
        include: { payments: { orderBy: [{ createdAt: "asc" }, { id: "asc" }], include: { refunds: { orderBy: [{ createdAt: "desc" }, { id: "desc" }] } } } },
      });
      const read = await db.transaction(db.unscoped("test"), "plain", (tx) => intents.findInStatus(tx, { intentId: "pi_paid_b", tenantId: "shop-b" }, "succeeded"));
      expect(read).toEqual(expected);
      expect(read?.payments.map((payment) => [payment.id, payment.refunds?.length])).toEqual([[first.id, 0], [second.id, 2]]);
      const { read: none, other } = await db.transaction(db.unscoped("test"), "plain", async (tx) => ({
        read: await intents.findInStatus(tx, { intentId: "pi_paid_b", tenantId: "shop-b" }, "processing"),
        other: await intents.findInStatus(tx, { intentId: "pi_paid_b", tenantId: "shop-a" }, "succeeded"),
      }));
      expect(none).toBeUndefined();
      expect(other).toBeUndefined();
      // An intent without payments reads with none.
      const bare = await db.transaction(db.unscoped("test"), "plain", (tx) => intents.findInStatus(tx, { intentId: "pi_live_b", tenantId: "shop-b" }, "requires_payment"));
      expect(bare?.payments).toEqual([]);
    });

    it("refuses a row naming another tenant, and the unscoped door", async () => {
      await expect(intents.create(live("shop-a"), intent("pi_other", "shop-b", "ORDER4"), due)).rejects.toThrow(TenantScopeViolation);
      await expect(intents.findRowAndAnyDue(db.unscoped("test") as never, "pi_live_b", { from: ["requires_payment"], at })).rejects.toThrow(TenantScopeViolation);
      expect(await db.unscoped("test").paymentIntent.count({ where: { id: "pi_other" } })).toBe(0);
    });
  });
}
