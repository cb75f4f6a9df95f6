/**
 * The refunds migration on a database with reversals from before it: every reversal becomes a refund
 * by reversal of the whole amount, ids, Daraja's ids, status and schedule kept, so it is counted against
 * its payment and settled by its callbacks as before; payment_reversals is gone afterwards.
 */
import { cp, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { applyMigrations, defaultMigrationsDir, openDatabase } from "../src/index.js";

const migration = "20261202000000_refunds";

async function migrationsBefore(name: string): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), "mteja-migrations-"));
  for (const entry of await readdir(defaultMigrationsDir, { withFileTypes: true })) {
    if (entry.isDirectory() && entry.name < name) await cp(path.join(defaultMigrationsDir, entry.name), path.join(dir, entry.name), { recursive: true });
  }
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

const id = (n: number) => `00000000-0000-4000-8000-00000000000${n}`;

describe(`migration ${migration}`, () => {
  it("moves every reversal into refunds as a refund by reversal, and drops payment_reversals", async () => {
    const db = await openDatabase({});
    const earlier = await migrationsBefore(migration);
    try {
      await applyMigrations(db.sql, earlier.dir);
      await db.sql.exec(`INSERT INTO tenants (id, name) VALUES ('old-shop', 'Old shop')`);
      for (const [n, receipt] of [[1, "RCPT000001"], [2, "RCPT000002"]] as const) {
        await db.sql.exec(
          `INSERT INTO payments (id, tenant_id, phone, amount, reference, description, status, mpesa_receipt, channel) VALUES ('${id(n)}', 'old-shop', '254712345678', 150, 'R', 'Payment', 'SUCCESS', '${receipt}', 'stk')`,
        );
      }
      // A settled one, and one still waiting for its status query.
      await db.sql.exec(
        `INSERT INTO payment_reversals (id, tenant_id, payment_id, amount, original_receipt, status, originator_conversation_id, conversation_id, receipt, result_code, result_desc, requested_by, idempotency_key, settled_at, callback_token_form)
         VALUES ('${id(3)}', 'old-shop', '${id(1)}', 150, 'RCPT000001', 'SUCCESS', 'oc-1', 'AG_1', 'SKE0000001', '0', 'done', 'api_key:k', 'key-1', now(), 'tenant')`,
      );
      await db.sql.exec(
        `INSERT INTO payment_reversals (id, tenant_id, payment_id, amount, original_receipt, status, requested_by, last_error, status_query_attempts, next_status_query_at)
         VALUES ('${id(4)}', 'old-shop', '${id(2)}', 150, 'RCPT000002', 'UNKNOWN', 'user:u', 'outcome unknown', 2, '2026-12-01T10:00:00Z')`,
      );

      const applied = (await db.migrate()).applied;
      expect(applied).toEqual(expect.arrayContaining([migration, "20261202000100_drop_payment_reversals"]));
      const refunds = await db.unscoped.refund.findMany({ orderBy: { id: "asc" } });
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
      expect(await db.sql.query(`SELECT table_name FROM information_schema.tables WHERE table_name = 'payment_reversals'`)).toEqual([]);

      // The index that holds one standing reversal per payment: a second reversal of the first payment is refused.
      await expect(
        db.sql.exec(`INSERT INTO refunds (id, tenant_id, payment_id, amount, method, original_receipt, requested_by) VALUES ('${id(5)}', 'old-shop', '${id(1)}', 150, 'reversal', 'RCPT000001', 'user:u')`),
      ).rejects.toThrow(/refunds_one_standing_reversal_per_payment/);
      // A B2C refund names no receipt it reverses.
      await expect(
        db.sql.exec(`INSERT INTO refunds (id, tenant_id, payment_id, amount, method, original_receipt, requested_by) VALUES ('${id(6)}', 'old-shop', '${id(1)}', 10, 'b2c', 'RCPT000001', 'user:u')`),
      ).rejects.toThrow(/refunds_original_receipt_check/);
    } finally {
      await earlier.remove();
      await db.close();
    }
  });
});
