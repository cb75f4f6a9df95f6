-- The simulated Daraja's memory (docs/daraja-simulator.md#the-provider): test mode's provider keeps
-- what it decided for each request here, so any instance sends its callback or answers its query.
-- Simulated money only, no tenant's data. New tables: expand only.

-- CreateTable
CREATE TABLE "simulated_daraja_records" (
    "kind" TEXT NOT NULL,
    "daraja_id" TEXT NOT NULL,
    "receipt" TEXT,
    "reverses" TEXT,
    "phone" TEXT,
    "data" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "simulated_daraja_records_pkey" PRIMARY KEY ("kind","daraja_id")
);

-- CreateTable
CREATE TABLE "simulated_daraja_balances" (
    "account" TEXT NOT NULL,
    "amount_cents" BIGINT NOT NULL,

    CONSTRAINT "simulated_daraja_balances_pkey" PRIMARY KEY ("account")
);

-- CreateIndex
CREATE INDEX "simulated_daraja_records_kind_receipt_idx" ON "simulated_daraja_records"("kind", "receipt");

-- CreateIndex
CREATE INDEX "simulated_daraja_records_kind_reverses_idx" ON "simulated_daraja_records"("kind", "reverses");

-- CreateIndex
CREATE INDEX "simulated_daraja_records_kind_phone_idx" ON "simulated_daraja_records"("kind", "phone");
