/**
 * The tenant callback tokens migration on a database with rows from before it: every payment, payout
 * and reversal already stored sent its callback URL with the shared secret, and every tenant's C2B URLs
 * were registered with it, so they are all `shared`; rows written later without a form (an instance of
 * the previous version, during a rolling upgrade) are `shared` too, and a tenant created later is `tenant`.
 */
import { describe, expect, it } from "vitest";
import { plainSqlOf } from "./support/databases.js";
import { withDatabaseBefore } from "./support/migrations.js";

const migration = "20261128140000_tenant_callback_tokens";


describe(`migration ${migration}`, () => {
  it("marks what was stored before as sent with the shared secret, and tenants created after as registered with their own token", async () => {
    await withDatabaseBefore(migration, async (db) => {
      await plainSqlOf(db).sql.exec(`INSERT INTO tenants (id, name) VALUES ('old-shop', 'Old shop')`);
      await plainSqlOf(db).sql.exec(`INSERT INTO users (id, tenant_id, email) VALUES ('00000000-0000-4000-8000-000000000001', 'old-shop', 'a@example.com')`);
      await plainSqlOf(db).sql.exec(
        `INSERT INTO payments (id, tenant_id, user_id, phone, amount, reference, description, status, mpesa_receipt) VALUES ('00000000-0000-4000-8000-000000000002', 'old-shop', '00000000-0000-4000-8000-000000000001', '254712345678', 10, 'R', 'Payment', 'SUCCESS', 'RCPT000001')`,
      );
      await plainSqlOf(db).sql.exec(
        `INSERT INTO payouts (id, tenant_id, requested_by, phone, amount, command_id, remarks, originator_conversation_id) VALUES ('00000000-0000-4000-8000-000000000003', 'old-shop', '00000000-0000-4000-8000-000000000001', '254712345678', 10, 'BusinessPayment', 'Payout', 'oc-1')`,
      );
      await plainSqlOf(db).sql.exec(
        `INSERT INTO payment_reversals (id, tenant_id, payment_id, amount, original_receipt, requested_by) VALUES ('00000000-0000-4000-8000-000000000004', 'old-shop', '00000000-0000-4000-8000-000000000002', 10, 'RCPT000001', 'user:x')`,
      );
      await plainSqlOf(db).sql.exec(`INSERT INTO momo_callbacks (id, kind, raw_body, outcome) VALUES ('00000000-0000-4000-8000-000000000005', 'stkpush', '{}', 'accepted')`);

      expect((await db.migrate()).applied).toContain(migration);
      expect(await db.unscoped("test").payment.findMany({ select: { callbackTokenForm: true } })).toEqual([{ callbackTokenForm: "shared" }]);
      expect(await db.unscoped("test").payout.findMany({ select: { callbackTokenForm: true } })).toEqual([{ callbackTokenForm: "shared" }]);
      // Reversals are refunds since 20261202000000_refunds, which keeps their form.
      expect(await db.unscoped("test").refund.findMany({ select: { callbackTokenForm: true } })).toEqual([{ callbackTokenForm: "shared" }]);
      expect(await db.unscoped("test").darajaCallback.findMany({ select: { tokenTenantId: true } })).toEqual([{ tokenTenantId: null }]);
      expect((await db.unscoped("test").tenant.findUniqueOrThrow({ where: { id: "old-shop" } })).c2bCallbackTokenForm).toBe("shared");

      // Written afterwards without a form (the previous version's insert): the shared secret is what it sent.
      await plainSqlOf(db).sql.exec(
        `INSERT INTO payouts (id, tenant_id, requested_by, phone, amount, command_id, remarks, originator_conversation_id) VALUES ('00000000-0000-4000-8000-000000000006', 'old-shop', '00000000-0000-4000-8000-000000000001', '254712345678', 10, 'BusinessPayment', 'Payout', 'oc-2')`,
      );
      expect((await db.unscoped("test").payout.findUniqueOrThrow({ where: { originatorConversationId: "oc-2" } })).callbackTokenForm).toBe("shared");
      await plainSqlOf(db).sql.exec(`INSERT INTO tenants (id, name) VALUES ('new-shop', 'New shop')`);
      expect((await db.unscoped("test").tenant.findUniqueOrThrow({ where: { id: "new-shop" } })).c2bCallbackTokenForm).toBe("tenant");
      await expect(plainSqlOf(db).sql.exec(`UPDATE payments SET callback_token_form = 'secret'`)).rejects.toThrow(/payments_callback_token_form_valid/);
    });
  });
});
