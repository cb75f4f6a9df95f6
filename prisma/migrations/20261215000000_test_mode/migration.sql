-- Test mode (docs/test-mode.md): every server object carries whether it is live money or test money.
-- Rows written before this migration are live. A column with a constant default is added without
-- rewriting the table, and code still running the previous release keeps writing live rows.
-- Expand only: the open-reference index moves from (tenant, reference) to (tenant, mode, reference) —
-- the new one is built first, then the old one dropped, so no moment is left without the rule.
ALTER TABLE "payment_intents" ADD COLUMN "livemode" BOOLEAN NOT NULL DEFAULT true;
ALTER TABLE "payments" ADD COLUMN "livemode" BOOLEAN NOT NULL DEFAULT true;
ALTER TABLE "refunds" ADD COLUMN "livemode" BOOLEAN NOT NULL DEFAULT true;
ALTER TABLE "payouts" ADD COLUMN "livemode" BOOLEAN NOT NULL DEFAULT true;
ALTER TABLE "webhook_endpoints" ADD COLUMN "livemode" BOOLEAN NOT NULL DEFAULT true;
ALTER TABLE "webhook_events" ADD COLUMN "livemode" BOOLEAN NOT NULL DEFAULT true;

CREATE UNIQUE INDEX "payment_intents_open_reference_per_mode" ON "payment_intents"("tenant_id", "livemode", lower("reference"))
  WHERE "status" IN ('requires_payment', 'processing');
DROP INDEX "payment_intents_open_reference";

-- An intent's Idempotency-Key is the key's mode's too: a test key's retry never answers a live intent.
CREATE UNIQUE INDEX "payment_intents_tenant_id_livemode_idempotency_key_key" ON "payment_intents"("tenant_id", "livemode", "idempotency_key");
DROP INDEX "payment_intents_tenant_id_idempotency_key_key";
