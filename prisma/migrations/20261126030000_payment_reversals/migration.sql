-- Reversals (docs/mpesa.md#reversals): one row per reversal request of a payment, stored before
-- Daraja is called. A payment has at most one reversal that is not FAILED.

-- CreateTable
CREATE TABLE "payment_reversals" (
    "id" UUID NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "payment_id" UUID NOT NULL,
    "amount" INTEGER NOT NULL,
    "original_receipt" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'PENDING',
    "originator_conversation_id" TEXT,
    "conversation_id" TEXT,
    "receipt" TEXT,
    "result_code" TEXT,
    "result_desc" TEXT,
    "requested_by" TEXT NOT NULL,
    "idempotency_key" TEXT,
    "last_error" TEXT,
    "status_query_attempts" INTEGER NOT NULL DEFAULT 0,
    "next_status_query_at" TIMESTAMPTZ(3),
    "settled_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "payment_reversals_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "payment_reversals_status_check" CHECK ("status" IN ('PENDING', 'SUCCESS', 'FAILED', 'UNKNOWN'))
);

-- CreateIndex
CREATE UNIQUE INDEX "payment_reversals_originator_conversation_id_key" ON "payment_reversals"("originator_conversation_id");

-- CreateIndex
CREATE UNIQUE INDEX "payment_reversals_conversation_id_key" ON "payment_reversals"("conversation_id");

-- CreateIndex
CREATE UNIQUE INDEX "payment_reversals_tenant_id_idempotency_key_key" ON "payment_reversals"("tenant_id", "idempotency_key");

-- CreateIndex
CREATE INDEX "payment_reversals_payment_id_created_at_idx" ON "payment_reversals"("payment_id", "created_at");

-- CreateIndex
CREATE INDEX "payment_reversals_status_next_status_query_at_idx" ON "payment_reversals"("status", "next_status_query_at");

-- One reversal per payment: only a FAILED one leaves room for another.
CREATE UNIQUE INDEX "payment_reversals_one_open_per_payment" ON "payment_reversals"("payment_id") WHERE "status" <> 'FAILED';

-- AddForeignKey
ALTER TABLE "payment_reversals" ADD CONSTRAINT "payment_reversals_payment_id_fkey" FOREIGN KEY ("payment_id") REFERENCES "payments"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
