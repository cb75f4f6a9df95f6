-- Refunds (docs/mpesa.md#refunds): one row per refund of a payment, by Daraja's Reversal or by B2C to
-- the payer, stored before Daraja is called. The reversals made through POST /api/v1/payments/{id}/reversal
-- are refunds by reversal: they are copied here, ids and all (the next migration drops payment_reversals).

-- CreateTable
CREATE TABLE "refunds" (
    "id" UUID NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "payment_id" UUID NOT NULL,
    "amount" INTEGER NOT NULL,
    "method" TEXT NOT NULL,
    "reason" TEXT,
    "status" TEXT NOT NULL DEFAULT 'PENDING',
    "original_receipt" TEXT,
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
    "callback_token_form" TEXT NOT NULL DEFAULT 'tenant',

    CONSTRAINT "refunds_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "refunds_status_check" CHECK ("status" IN ('PENDING', 'SUCCESS', 'FAILED', 'UNKNOWN')),
    CONSTRAINT "refunds_method_check" CHECK ("method" IN ('reversal', 'b2c')),
    CONSTRAINT "refunds_amount_check" CHECK ("amount" > 0),
    -- A reversal names the receipt it reverses; a B2C refund names none.
    CONSTRAINT "refunds_original_receipt_check" CHECK (("method" = 'reversal') = ("original_receipt" IS NOT NULL))
);

-- CreateIndex
CREATE UNIQUE INDEX "refunds_originator_conversation_id_key" ON "refunds"("originator_conversation_id");

-- CreateIndex
CREATE UNIQUE INDEX "refunds_conversation_id_key" ON "refunds"("conversation_id");

-- CreateIndex
CREATE UNIQUE INDEX "refunds_tenant_id_idempotency_key_key" ON "refunds"("tenant_id", "idempotency_key");

-- CreateIndex
CREATE INDEX "refunds_payment_id_created_at_idx" ON "refunds"("payment_id", "created_at");

-- CreateIndex
CREATE INDEX "refunds_status_next_status_query_at_idx" ON "refunds"("status", "next_status_query_at");

-- CreateIndex: the B2C refunds of a shop's Nairobi day (the daily limit it shares with payouts).
CREATE INDEX "refunds_tenant_id_method_created_at_idx" ON "refunds"("tenant_id", "method", "created_at");

-- A reversal gives the whole payment back: only a FAILED one leaves room for another.
CREATE UNIQUE INDEX "refunds_one_standing_reversal_per_payment" ON "refunds"("payment_id")
    WHERE "method" = 'reversal' AND "status" <> 'FAILED';

-- AddForeignKey
ALTER TABLE "refunds" ADD CONSTRAINT "refunds_payment_id_fkey" FOREIGN KEY ("payment_id") REFERENCES "payments"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- The reversals made so far, as refunds by reversal of the whole amount (a reversal has no reason).
INSERT INTO "refunds" (
    "id", "tenant_id", "payment_id", "amount", "method", "reason", "status", "original_receipt",
    "originator_conversation_id", "conversation_id", "receipt", "result_code", "result_desc", "requested_by",
    "idempotency_key", "last_error", "status_query_attempts", "next_status_query_at", "settled_at", "created_at",
    "updated_at", "callback_token_form"
)
SELECT "id", "tenant_id", "payment_id", "amount", 'reversal', NULL, "status", "original_receipt",
       "originator_conversation_id", "conversation_id", "receipt", "result_code", "result_desc", "requested_by",
       "idempotency_key", "last_error", "status_query_attempts", "next_status_query_at", "settled_at", "created_at",
       "updated_at", "callback_token_form"
  FROM "payment_reversals";
