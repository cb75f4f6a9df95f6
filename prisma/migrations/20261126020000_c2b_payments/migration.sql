-- C2B payments (docs/mpesa.md#c2b): a customer pays the paybill or till from the M-Pesa menu. Such a
-- payment is a row of payments with channel 'c2b', no customer account (user_id null), keyed by its
-- TransID, matched to an intent by BillRefNumber and amount or kept 'unmatched' for the shop.

-- AlterTable
ALTER TABLE "payments" ALTER COLUMN "user_id" DROP NOT NULL;
ALTER TABLE "payments" ADD COLUMN "channel" TEXT NOT NULL DEFAULT 'stk',
ADD COLUMN "trans_id" TEXT,
ADD COLUMN "c2b_match" TEXT,
ADD COLUMN "c2b_note" TEXT,
ADD COLUMN "short_code" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "payments_trans_id_key" ON "payments"("trans_id");

-- CreateIndex
CREATE INDEX "payments_tenant_id_channel_c2b_match_created_at_idx" ON "payments"("tenant_id", "channel", "c2b_match", "created_at");
