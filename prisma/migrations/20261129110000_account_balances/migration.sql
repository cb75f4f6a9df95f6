-- Account balance (docs/mpesa.md#account-balance): one row per request for the balance of a shop's B2C
-- short code, stored before Daraja is called and completed by its result callback.

-- CreateTable
CREATE TABLE "account_balances" (
    "id" UUID NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "short_code" TEXT NOT NULL,
    "originator_conversation_id" TEXT,
    "conversation_id" TEXT,
    "accounts" JSONB,
    "raw_balance" TEXT,
    "result_code" TEXT,
    "result_desc" TEXT,
    "requested_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "account_balances_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "account_balances_status_check" CHECK ("status" IN ('pending', 'succeeded', 'failed'))
);

-- CreateIndex
CREATE UNIQUE INDEX "account_balances_originator_conversation_id_key"
    ON "account_balances"("originator_conversation_id");

-- CreateIndex
CREATE UNIQUE INDEX "account_balances_conversation_id_key" ON "account_balances"("conversation_id");

-- CreateIndex
CREATE INDEX "account_balances_tenant_id_requested_at_idx" ON "account_balances"("tenant_id", "requested_at");
