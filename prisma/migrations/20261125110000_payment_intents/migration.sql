-- Payment intents (docs/payment-intents.md): what a shop's backend says is owed, paid by STK prompts.
-- The database enforces the intent's rules beside the service: a reference is unique among a tenant's
-- open intents (case-insensitively), and an intent has at most one succeeded payment that counts
-- (a second success is stored with duplicate = true).

-- CreateTable
CREATE TABLE "payment_intents" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "amount" INTEGER NOT NULL,
    "reference" TEXT NOT NULL,
    "description" TEXT,
    "user_id" UUID,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "status" TEXT NOT NULL DEFAULT 'requires_payment',
    "idempotency_key" TEXT,
    "request_hash" TEXT,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "payment_intents_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "payment_intents_status_check" CHECK ("status" IN ('requires_payment', 'processing', 'succeeded', 'cancelled', 'expired'))
);

-- AlterTable
ALTER TABLE "payments" ADD COLUMN "intent_id" TEXT,
ADD COLUMN "duplicate" BOOLEAN NOT NULL DEFAULT false;

-- CreateIndex
CREATE UNIQUE INDEX "payment_intents_tenant_id_idempotency_key_key" ON "payment_intents"("tenant_id", "idempotency_key");

-- CreateIndex
CREATE INDEX "payment_intents_tenant_id_status_expires_at_idx" ON "payment_intents"("tenant_id", "status", "expires_at");

-- CreateIndex
CREATE INDEX "payment_intents_tenant_id_created_at_idx" ON "payment_intents"("tenant_id", "created_at");

-- CreateIndex
CREATE INDEX "payments_intent_id_idx" ON "payments"("intent_id");

-- A reference names one open order: unique among the tenant's intents that are not terminal.
CREATE UNIQUE INDEX "payment_intents_open_reference" ON "payment_intents"("tenant_id", lower("reference")) WHERE "status" IN ('requires_payment', 'processing');

-- At most one succeeded payment counts for an intent.
CREATE UNIQUE INDEX "payments_one_success_per_intent" ON "payments"("intent_id") WHERE "status" = 'SUCCESS' AND NOT "duplicate";

-- AddForeignKey
ALTER TABLE "payment_intents" ADD CONSTRAINT "payment_intents_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "payments" ADD CONSTRAINT "payments_intent_id_fkey" FOREIGN KEY ("intent_id") REFERENCES "payment_intents"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
