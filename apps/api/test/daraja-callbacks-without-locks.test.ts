/**
 * An STK callback applied without locks (docs/mpesa.md#callbacks): the payment is read, then settled
 * by one statement outside any transaction that writes only while the payment is still as read and the
 * stored callback still unhandled. Here something else changes one of them between the read and the
 * write: the statement must write nothing (no settlement, no event), and the locked path decides.
 */
import type { SqlQuery } from "@mteja/db";
import { describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { skipThisTarget } from "./support/database.js";
import { postCallback, stkCallbackBody, uniqueReceipt, type DarajaApp } from "./support/daraja.js";
import { wrapPlainTransactions } from "./support/plain-transactions.js";

it.override({ simOptions: { callbacks: false } });

describe.skipIf(skipThisTarget)("STK callbacks applied without locks", () => {
  let t: DarajaApp;
  it.beforeAll(async ({ sim, launch }) => {
    t = await launch.momo({ darajaUrl: sim.url });
  });

  async function prompt(amount = 100) {
    const user = await t.customer();
    const pushed = await t.rest.post("/api/momo/stkpush", { phone: "0712345678", amount }, user.accessToken);
    expect(pushed.status).toBe(200);
    return pushed.body.data as { checkoutRequestId: string; merchantRequestId: string };
  }

  /** Runs `meanwhile` right after the apply without locks has read the payment, once; then posts `body`. */
  async function postWithChangeAfterRead(body: unknown, meanwhile: () => Promise<unknown>) {
    let changed = false;
    const restore = wrapPlainTransactions(t.deps.db, "autocommit", (sql) => ({
      $executeRaw: (query, ...values) => sql.$executeRaw(query, ...values),
      $queryRaw: async <T>(query: SqlQuery, ...values: unknown[]) => {
        const rows = await sql.$queryRaw<T>(query, ...values);
        const text = "raw" in query ? query.join("?") : query.text;
        if (!changed && text.includes("FROM payments WHERE checkout_request_id =")) {
          changed = true;
          await meanwhile();
        }
        return rows;
      },
    }));
    try {
      const answer = await postCallback(t.callbackUrl("stkpush"), body);
      expect(changed).toBe(true);
      return answer;
    } finally {
      restore();
    }
  }

  const payment = (checkoutRequestId: string) => t.deps.db.unscoped("test").payment.findUniqueOrThrow({ where: { checkoutRequestId } });
  const storedCallback = (checkoutRequestId: string) => t.deps.db.unscoped("test").darajaCallback.findFirstOrThrow({ where: { correlationId: checkoutRequestId } });
  const events = (type: string, paymentId: string) => t.deps.db.unscoped("test").webhookEvent.count({ where: { type, body: { contains: paymentId } } });

  it("does not settle a payment another path settled after the read: no second settlement, no payment.succeeded; the locked path flags the conflict", async () => {
    const ids = await prompt(100);
    const before = await payment(ids.checkoutRequestId);
    const answer = await postWithChangeAfterRead(stkCallbackBody(ids, 0, { amount: 100, receipt: uniqueReceipt(), phone: "254712345678" }), () =>
      t.deps.db.unscoped("test").payment.update({ where: { id: before.id }, data: { status: "CANCELLED", resultCode: "1032", settledAt: new Date(), updatedAt: new Date(before.updatedAt.getTime() + 1000) } }),
    );
    expect(answer.status).toBe(200);
    expect(await payment(ids.checkoutRequestId)).toMatchObject({ status: "CANCELLED", mpesaReceipt: null });
    expect(await storedCallback(ids.checkoutRequestId)).toMatchObject({ outcome: "flagged", paymentId: before.id, flagReason: expect.stringContaining("conflicts with the settled status CANCELLED") });
    expect(await events("payment.succeeded", before.id)).toBe(0);
    expect(await events("callback.flagged", before.id)).toBe(1);
  });

  it("writes nothing when only the payment's updated_at moved since the read; the locked path then applies it once", async () => {
    const ids = await prompt(100);
    const before = await payment(ids.checkoutRequestId);
    const receipt = uniqueReceipt();
    const answer = await postWithChangeAfterRead(stkCallbackBody(ids, 0, { amount: 100, receipt, phone: "254712345678" }), () =>
      t.deps.db.unscoped("test").payment.update({ where: { id: before.id }, data: { updatedAt: new Date(before.updatedAt.getTime() + 1000) } }),
    );
    expect(answer.status).toBe(200);
    expect(await payment(ids.checkoutRequestId)).toMatchObject({ status: "SUCCESS", mpesaReceipt: receipt });
    expect(await storedCallback(ids.checkoutRequestId)).toMatchObject({ outcome: "applied", paymentId: before.id });
    expect(await events("payment.succeeded", before.id)).toBe(1);
  });

  it("does not settle the payment when the stored callback was handled by another path after the read", async () => {
    const ids = await prompt(100);
    const before = await payment(ids.checkoutRequestId);
    const answer = await postWithChangeAfterRead(stkCallbackBody(ids, 0, { amount: 100, receipt: uniqueReceipt(), phone: "254712345678" }), () =>
      t.deps.db.unscoped("test").darajaCallback.updateMany({ where: { correlationId: ids.checkoutRequestId }, data: { outcome: "duplicate" } }),
    );
    expect(answer.status).toBe(200);
    expect(await payment(ids.checkoutRequestId)).toMatchObject({ status: "PENDING", updatedAt: before.updatedAt, mpesaReceipt: null });
    expect(await storedCallback(ids.checkoutRequestId)).toMatchObject({ outcome: "duplicate", paymentId: null });
    expect(await events("payment.succeeded", before.id)).toBe(0);
  });

  it("records a duplicate only while the payment is still as read: one whose status changed after the read is decided again, under the lock", async () => {
    const ids = await prompt(100);
    const body = stkCallbackBody(ids, 0, { amount: 100, receipt: uniqueReceipt(), phone: "254712345678" });
    expect((await postCallback(t.callbackUrl("stkpush"), body)).status).toBe(200);
    const settled = await payment(ids.checkoutRequestId);
    expect(settled.status).toBe("SUCCESS");
    // Daraja sends the success again: as read (SUCCESS) a duplicate. A test-only change of status after
    // the read makes it a conflict, which only a decision on the row as it now is can see.
    await postWithChangeAfterRead(body, () =>
      t.deps.db.unscoped("test").payment.update({ where: { id: settled.id }, data: { status: "FAILED", updatedAt: new Date(settled.updatedAt.getTime() + 1000) } }),
    );
    const rows = await t.deps.db.unscoped("test").darajaCallback.findMany({ where: { correlationId: ids.checkoutRequestId }, orderBy: { receivedAt: "asc" } });
    expect(rows.map((row) => row.outcome)).toEqual(["applied", "flagged"]);
    expect(rows[1]!.flagReason).toMatch(/^conflicts with the settled status FAILED/);
  });
});
