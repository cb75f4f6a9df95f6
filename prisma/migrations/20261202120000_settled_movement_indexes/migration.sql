-- The daily report (docs/reports.md) reads a tenant's money movements settled in one Nairobi day, in the
-- order they settled, a page at a time on the keyset (settled_at, id): each page enters these indexes at
-- the previous page's end instead of scanning the tenant's rows.
-- Expand only.
CREATE INDEX "payments_tenant_id_settled_at_id_idx" ON "payments"("tenant_id", "settled_at", "id");
CREATE INDEX "payouts_tenant_id_settled_at_id_idx" ON "payouts"("tenant_id", "settled_at", "id");
CREATE INDEX "refunds_tenant_id_settled_at_id_idx" ON "refunds"("tenant_id", "settled_at", "id");
