/**
 * A settlement's one statement (src/repositories/settle-row.ts): the row's changes, the stored
 * callback's outcome as their precondition, and the event reporting the change. Everything is written
 * or nothing is: on a plain transaction, and on autocommit statements with a row read without its lock.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callbacks, payments, type Database, type EventRow } from "../src/index.js";
import { databaseTargets, plainSqlOf } from "./support/databases.js";

const targets = await databaseTargets("mteja_settle");

const at = new Date("2026-11-27T10:00:00.000Z");
const settledAt = new Date("2026-11-27T10:01:00.000Z");
const success = { status: "SUCCESS", resultCode: "0", settledAt, updatedAt: settledAt };

for (const target of targets) {
  describe.skipIf(target.skip)(`payments.settle (${target.name})`, () => {
    let db: Database;
    let drop: () => Promise<void>;

    beforeAll(async () => {
      ({ db, drop } = await target.open());
      await db.migrate();
      await db.unscoped("test").tenant.create({ data: { id: "shop", name: "Shop" } });
    });
    afterAll(() => drop?.());

    async function pendingPayment() {
      const prompt = { reference: "ORDER1", description: "Payment", createdAt: at, updatedAt: at };
      return payments.create(db.unscoped("test"), {
        id: randomUUID(),
        tenantId: "shop",
        phone: "254712345678",
        amount: 100,
        ...prompt,
      });
    }

    async function storedCallback(outcome: string) {
      const row = { kind: "stkpush", rawBody: "{}", sourceIp: null, receivedAt: at, outcome, correlationId: null };
      return callbacks.store(db.unscoped("test"), { ...row, flagReason: null, accountReference: null, tokenTenantId: null });
    }

    function eventOf(paymentId: string): EventRow {
      return {
        id: `evt_${randomUUID().replace(/-/g, "")}`,
        tenantId: "shop",
        livemode: true,
        type: "payment.succeeded",
        body: paymentId,
        at: settledAt,
      };
    }

    const eventCount = (event: EventRow) => db.unscoped("test").webhookEvent.count({ where: { id: event.id } });
    const stored = (id: string) => db.unscoped("test").darajaCallback.findUniqueOrThrow({ where: { id } });

    it("writes the payment, the callback's outcome and the event at once while the callback is unhandled", async () => {
      const payment = await pendingPayment();
      const callbackId = await storedCallback("accepted");
      const event = eventOf(payment.id);
      const unlessHandled = { callbackId, outcome: { outcome: "applied", link: { paymentId: payment.id } } };
      const settled = await db.transaction(db.unscoped("test"), "plain", (tx) =>
        payments.settle(tx, payment, success, { event, unlessHandled }),
      );
      expect(settled).toMatchObject(success);
      expect(await stored(callbackId)).toMatchObject({ outcome: "applied", paymentId: payment.id });
      expect(await eventCount(event)).toBe(1);
    });

    it("returns the payment as stored, every column, without reading it back", async () => {
      const payment = await pendingPayment();
      const receipt = { mpesaReceipt: `R${Date.now()}`, paidAmount: 100, paidPhone: "254712345678", transactionDate: "20261127100100" };
      const settled = await db.transaction(db.unscoped("test"), "plain", (tx) => payments.settle(tx, payment, { ...success, ...receipt }));
      expect(settled).toEqual(await payments.get(db.unscoped("test"), payment.id));
    });

    it("writes nothing when the callback was handled first", async () => {
      const payment = await pendingPayment();
      const callbackId = await storedCallback("duplicate");
      const event = eventOf(payment.id);
      const unlessHandled = { callbackId, outcome: { outcome: "applied", link: { paymentId: payment.id } } };
      expect(
        await db.transaction(db.unscoped("test"), "plain", (tx) => payments.settle(tx, payment, success, { event, unlessHandled })),
      ).toBeUndefined();
      expect(await payments.get(db.unscoped("test"), payment.id)).toMatchObject({ status: "PENDING" });
      expect(await stored(callbackId)).toMatchObject({ outcome: "duplicate", paymentId: null });
      expect(await eventCount(event)).toBe(0);
    });

    it("writes nothing outside a transaction when the payment is no longer as read", async () => {
      const payment = await pendingPayment();
      const callbackId = await storedCallback("accepted");
      const event = eventOf(payment.id);
      const asRead = {
        table: "payments" as const,
        id: payment.id,
        status: "PENDING",
        updatedAt: new Date(at.getTime() - 1000),
      };
      const unlessHandled = { callbackId, outcome: { outcome: "applied", link: { paymentId: payment.id } }, asRead };
      expect(await payments.settle(plainSqlOf(db).autocommit, payment, success, { event, unlessHandled })).toBeUndefined();
      expect(await payments.get(db.unscoped("test"), payment.id)).toMatchObject({ status: "PENDING" });
      expect(await stored(callbackId)).toMatchObject({ outcome: "accepted", paymentId: null });
      expect(await eventCount(event)).toBe(0);

      const current = { ...asRead, updatedAt: at };
      const settled = await payments.settle(plainSqlOf(db).autocommit, payment, success, {
        event,
        unlessHandled: { ...unlessHandled, asRead: current },
      });
      expect(settled).toMatchObject(success);
      expect(await eventCount(event)).toBe(1);
    });
  });
}
