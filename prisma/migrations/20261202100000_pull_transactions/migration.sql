-- Payments that never called back (docs/mpesa.md#recovery): each shop's short code registered with
-- Daraja's Pull Transactions API, and when the sweep pulls it next. One row per tenant: the sweep
-- claims the due rows oldest first, each tenant once, and leases a claimed row by moving next_pull_at.
-- Expand only: a new table and a constraint every row already meets.

-- CreateTable
CREATE TABLE "pull_registrations" (
    "id" UUID NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "short_code" TEXT NOT NULL,
    "nominated_number" TEXT NOT NULL,
    "registered_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "next_pull_at" TIMESTAMPTZ(3) NOT NULL,
    "pulled_until" TIMESTAMPTZ(3),
    "last_pulled_at" TIMESTAMPTZ(3),
    "last_pull_error" TEXT,

    CONSTRAINT "pull_registrations_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "pull_registrations_tenant_id_key" ON "pull_registrations"("tenant_id");

-- CreateIndex
CREATE INDEX "pull_registrations_next_pull_at_idx" ON "pull_registrations"("next_pull_at");

-- A receipt is one payment whichever channel saw it first (an STK callback's MpesaReceiptNumber, a C2B
-- confirmation's or a pulled row's TransID): payments_mpesa_receipt_key already makes mpesa_receipt
-- unique across every tenant and channel, and a C2B payment's trans_id is its mpesa_receipt, so that
-- one index holds across the channels once this check keeps them equal (every C2B row is written so).
ALTER TABLE "payments"
    ADD CONSTRAINT "payments_trans_id_is_receipt" CHECK ("trans_id" IS NULL OR "mpesa_receipt" = "trans_id");
