-- A refund's Idempotency-Key is its mode's own (docs/test-mode.md), as an intent's has been since
-- 20261215000000_test_mode: the same key sent with a test key and with a live key makes two refunds.
-- Expand only: the new index is built before the old one is dropped, so no moment is left without the
-- rule; the previous release writes live rows only, for which both indexes say the same.
CREATE UNIQUE INDEX "refunds_tenant_id_livemode_idempotency_key_key" ON "refunds"("tenant_id", "livemode", "idempotency_key");
DROP INDEX "refunds_tenant_id_idempotency_key_key";
