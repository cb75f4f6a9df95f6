-- Fair webhook delivery and endpoints that keep failing (docs/webhooks.md#fairness). Expand only.

-- An endpoint whose every attempt has failed since `failing_since` is disabled once that is
-- WEBHOOK_DISABLE_AFTER_SECONDS ago, with `disabled_reason` 'failing' (null: enabled, or disabled by the shop).
ALTER TABLE "webhook_endpoints" ADD COLUMN "disabled_reason" TEXT,
                                ADD COLUMN "failing_since" TIMESTAMPTZ(3);

-- Until when a claimed delivery is leased to the instance sending it (null: not being sent), so a
-- redelivery can bring a waiting retry forward without touching one in flight.
ALTER TABLE "webhook_deliveries" ADD COLUMN "locked_until" TIMESTAMPTZ(3);

-- Not expressible in Prisma's schema language (a partial index): the fair claim finds the endpoints
-- with pending deliveries and each one's oldest due ones through it.
CREATE INDEX "webhook_deliveries_pending_by_endpoint" ON "webhook_deliveries"("endpoint_id", "next_attempt_at", "id") WHERE "status" = 'pending';
