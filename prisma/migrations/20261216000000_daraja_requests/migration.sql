-- expand-contract: contract
-- Requests to Daraja whose result comes by callback and moves no money (docs/mpesa.md#requests-without-money)
-- share one table, each naming its flow: Account Balance's requests move from account_balances, which no
-- release has used (the third release is its first), so the contract step drops it at once.

-- CreateTable
CREATE TABLE "daraja_requests" (
    "id" UUID NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "livemode" BOOLEAN NOT NULL DEFAULT true,
    "flow" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "request" JSONB NOT NULL,
    "originator_conversation_id" TEXT,
    "conversation_id" TEXT,
    "result" JSONB,
    "result_code" TEXT,
    "result_desc" TEXT,
    "requested_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "daraja_requests_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "daraja_requests_status_check" CHECK ("status" IN ('pending', 'succeeded', 'failed'))
);

-- CreateIndex
CREATE UNIQUE INDEX "daraja_requests_originator_conversation_id_key" ON "daraja_requests"("originator_conversation_id");

-- CreateIndex
CREATE UNIQUE INDEX "daraja_requests_conversation_id_key" ON "daraja_requests"("conversation_id");

-- CreateIndex
CREATE INDEX "daraja_requests_tenant_id_flow_livemode_requested_at_idx"
    ON "daraja_requests"("tenant_id", "flow", "livemode", "requested_at");

-- Every balance request so far, live money's (the balance is live only).
INSERT INTO "daraja_requests" (
    "id", "tenant_id", "livemode", "flow", "status", "request", "originator_conversation_id", "conversation_id",
    "result", "result_code", "result_desc", "requested_at", "updated_at"
)
SELECT "id", "tenant_id", true, 'balance', "status", jsonb_build_object('shortCode', "short_code"),
       "originator_conversation_id", "conversation_id",
       CASE WHEN "accounts" IS NULL AND "raw_balance" IS NULL THEN NULL
            ELSE jsonb_build_object('accounts', "accounts", 'rawBalance', "raw_balance") END,
       "result_code", "result_desc", "requested_at", "updated_at"
  FROM "account_balances";

DROP TABLE "account_balances";
