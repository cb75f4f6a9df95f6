/**
 * The refunds migration on a database with reversals from before it: every reversal becomes a refund
 * by reversal of the whole amount, ids, Daraja's ids, status and schedule kept, so it is counted against
 * its payment and settled by its callbacks as before. While the previous release still runs beside this
 * one, what it writes to payment_reversals is copied into refunds (and counted: the database refuses
 * refunds that would add up to more than their payment, whoever writes them).
 */
import { describe, expect, it } from "vitest";
import { plainSqlOf } from "./support/databases.js";
import { rowId as id, withDatabaseBefore } from "./support/migrations.js";

const migration = "20261202000000_refunds";


describe(`migration ${migration}`, () => {
  it("copies every reversal into refunds as a refund by reversal, and what the previous release writes afterwards", async () => {
    await withDatabaseBefore(migration, async (db) => {
      await plainSqlOf(db).sql.exec(`INSERT INTO tenants (id, name) VALUES ('old-shop', 'Old shop')`);
      for (const [n, receipt] of [[1, "RCPT000001"], [2, "RCPT000002"]] as const) {
        await plainSqlOf(db).sql.exec(
          `INSERT INTO payments (id, tenant_id, phone, amount, reference, description, status, mpesa_receipt, channel) VALUES ('${id(n)}', 'old-shop', '254712345678', 150, 'R', 'Payment', 'SUCCESS', '${receipt}', 'stk')`,
        );
      }
      // A settled one, and one still waiting for its status query.
      await plainSqlOf(db).sql.exec(
        `INSERT INTO payment_reversals (id, tenant_id, payment_id, amount, original_receipt, status, originator_conversation_id, conversation_id, receipt, result_code, result_desc, requested_by, idempotency_key, settled_at, callback_token_form)
         VALUES ('${id(3)}', 'old-shop', '${id(1)}', 150, 'RCPT000001', 'SUCCESS', 'oc-1', 'AG_1', 'SKE0000001', '0', 'done', 'api_key:k', 'key-1', now(), 'tenant')`,
      );
      await plainSqlOf(db).sql.exec(
        `INSERT INTO payment_reversals (id, tenant_id, payment_id, amount, original_receipt, status, requested_by, last_error, status_query_attempts, next_status_query_at)
         VALUES ('${id(4)}', 'old-shop', '${id(2)}', 150, 'RCPT000002', 'UNKNOWN', 'user:u', 'outcome unknown', 2, '2026-12-01T10:00:00Z')`,
      );

      expect((await db.migrate()).applied).toContain(migration);
      const refunds = await db.unscoped("test").refund.findMany({ orderBy: { id: "asc" } });
      expect(refunds).toEqual([
        expect.objectContaining({
          id: id(3), paymentId: id(1), amount: 150, method: "reversal", reason: null, status: "SUCCESS", originalReceipt: "RCPT000001",
          originatorConversationId: "oc-1", conversationId: "AG_1", receipt: "SKE0000001", requestedBy: "api_key:k", idempotencyKey: "key-1",
          callbackTokenForm: "tenant",
        }),
        expect.objectContaining({
          id: id(4), paymentId: id(2), method: "reversal", status: "UNKNOWN", lastError: "outcome unknown", statusQueryAttempts: 2,
          nextStatusQueryAt: new Date("2026-12-01T10:00:00Z"), callbackTokenForm: "shared",
        }),
      ]);

      // The previous release, still running, settles its reversal and makes another: both are refunds here.
      await plainSqlOf(db).sql.exec(`UPDATE payment_reversals SET status = 'SUCCESS', receipt = 'SKE0000002', result_code = '0' WHERE id = '${id(4)}'`);
      await plainSqlOf(db).sql.exec(`INSERT INTO payments (id, tenant_id, phone, amount, reference, description, status, mpesa_receipt, channel) VALUES ('${id(7)}', 'old-shop', '254712345678', 80, 'R', 'Payment', 'SUCCESS', 'RCPT000007', 'stk')`);
      await plainSqlOf(db).sql.exec(`INSERT INTO payment_reversals (id, tenant_id, payment_id, amount, original_receipt, requested_by) VALUES ('${id(8)}', 'old-shop', '${id(7)}', 80, 'RCPT000007', 'user:u')`);
      expect(await db.unscoped("test").refund.findUniqueOrThrow({ where: { id: id(4) } })).toMatchObject({ status: "SUCCESS", receipt: "SKE0000002" });
      expect(await db.unscoped("test").refund.findUniqueOrThrow({ where: { id: id(8) } })).toMatchObject({ method: "reversal", amount: 80, status: "PENDING" });
      // A refund this release settled keeps its outcome whatever the copy says.
      await plainSqlOf(db).sql.exec(`UPDATE refunds SET status = 'FAILED' WHERE id = '${id(8)}'`);
      await plainSqlOf(db).sql.exec(`UPDATE payment_reversals SET status = 'SUCCESS' WHERE id = '${id(8)}'`);
      expect((await db.unscoped("test").refund.findUniqueOrThrow({ where: { id: id(8) } })).status).toBe("FAILED");

      // Never more than the payment (150, refunded whole): a B2C refund of 10 more is refused by the database,
      // as is a second reversal of it (also by the index of one standing reversal per payment).
      const b2c = (n: number, amount: number) =>
        plainSqlOf(db).sql.exec(`INSERT INTO refunds (id, tenant_id, payment_id, amount, method, requested_by) VALUES ('${id(n)}', 'old-shop', '${id(1)}', ${amount}, 'b2c', 'user:u')`);
      await expect(b2c(5, 10)).rejects.toThrow(/would add up to 160 of 150/);
      await expect(
        plainSqlOf(db).sql.exec(`INSERT INTO refunds (id, tenant_id, payment_id, amount, method, original_receipt, requested_by) VALUES ('${id(9)}', 'old-shop', '${id(1)}', 150, 'reversal', 'RCPT000001', 'user:u')`),
      ).rejects.toThrow(/refunds_one_standing_reversal_per_payment|would add up/);
      // The previous release reversing a payment this release refunded a part of: refused, the part counted.
      const partly = "00000000-0000-4000-8000-000000000010";
      await plainSqlOf(db).sql.exec(`INSERT INTO payments (id, tenant_id, phone, amount, reference, description, status, mpesa_receipt, channel) VALUES ('${partly}', 'old-shop', '254712345678', 80, 'R', 'Payment', 'SUCCESS', 'RCPT000010', 'stk')`);
      await plainSqlOf(db).sql.exec(`INSERT INTO refunds (id, tenant_id, payment_id, amount, method, requested_by) VALUES ('00000000-0000-4000-8000-000000000011', 'old-shop', '${partly}', 50, 'b2c', 'user:u')`);
      await expect(
        plainSqlOf(db).sql.exec(`INSERT INTO payment_reversals (id, tenant_id, payment_id, amount, original_receipt, requested_by) VALUES ('00000000-0000-4000-8000-000000000012', 'old-shop', '${partly}', 80, 'RCPT000010', 'user:u')`),
      ).rejects.toThrow(/would add up to 130 of 80/);
      expect(await db.unscoped("test").paymentReversal.count({ where: { paymentId: partly } })).toBe(0);
      // A B2C refund names no receipt it reverses.
      await expect(
        plainSqlOf(db).sql.exec(`INSERT INTO refunds (id, tenant_id, payment_id, amount, method, original_receipt, requested_by) VALUES ('${id(6)}', 'old-shop', '${partly}', 10, 'b2c', 'RCPT000010', 'user:u')`),
      ).rejects.toThrow(/refunds_original_receipt_check/);
    });
  });
});
