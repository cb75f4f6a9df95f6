-- The payment lists read a page at a time, newest first, on the keyset (created_at, id)
-- (docs/performance.md, "Growth"): a shop's admin lists every payment of the tenant, its server the
-- C2B payments (whatever their match). Neither had an index in that order, so each page read and
-- sorted all of the tenant's payments. Expand only.
CREATE INDEX "payments_tenant_id_created_at_id_idx" ON "payments"("tenant_id", "created_at", "id");
CREATE INDEX "payments_tenant_id_channel_created_at_id_idx" ON "payments"("tenant_id", "channel", "created_at", "id");
