-- Refunds (docs/mpesa.md#refunds): one row per refund of a payment, by Daraja's Reversal or by B2C to
-- the payer, stored before Daraja is called. The reversals made through POST /api/v1/payments/{id}/reversal
-- are refunds by reversal: they are copied here, ids and all. Expand only: payment_reversals stays while
-- the previous release may run beside this one (a rolling deploy), and a trigger copies what it writes
-- there into refunds, so its reversals are counted too; a later release drops both (a contract step).

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

-- The refunds of a payment that are not FAILED never add up to more than it, whoever writes them: the
-- service checks it under the payment's row lock before it stores a refund (and answers 422); this holds
-- it for any other writer too (a reversal of the previous release, copied below), under the same lock.
CREATE FUNCTION mteja_refunds_within_payment() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  paid INTEGER;
  taken BIGINT;
BEGIN
  SELECT COALESCE(paid_amount, amount) INTO paid FROM payments WHERE id = NEW.payment_id FOR UPDATE;
  SELECT COALESCE(SUM(amount), 0) INTO taken FROM refunds
   WHERE payment_id = NEW.payment_id AND status <> 'FAILED' AND id <> NEW.id;
  IF NEW.status <> 'FAILED' AND taken + NEW.amount > paid THEN
    RAISE EXCEPTION 'refunds of payment % would add up to % of %', NEW.payment_id, taken + NEW.amount, paid
      USING ERRCODE = 'check_violation', CONSTRAINT = 'refunds_within_payment';
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER refunds_within_payment BEFORE INSERT ON refunds
  FOR EACH ROW EXECUTE FUNCTION mteja_refunds_within_payment();

-- A reversal the previous release writes or settles while it still runs is the same refund here. A row
-- this release settled first keeps its outcome (the copy changes only a refund still open).
CREATE FUNCTION mteja_reversal_as_refund() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO refunds (
      id, tenant_id, payment_id, amount, method, reason, status, original_receipt, originator_conversation_id,
      conversation_id, receipt, result_code, result_desc, requested_by, idempotency_key, last_error,
      status_query_attempts, next_status_query_at, settled_at, created_at, updated_at, callback_token_form)
    VALUES (
      NEW.id, NEW.tenant_id, NEW.payment_id, NEW.amount, 'reversal', NULL, NEW.status, NEW.original_receipt,
      NEW.originator_conversation_id, NEW.conversation_id, NEW.receipt, NEW.result_code, NEW.result_desc,
      NEW.requested_by, NEW.idempotency_key, NEW.last_error, NEW.status_query_attempts, NEW.next_status_query_at,
      NEW.settled_at, NEW.created_at, NEW.updated_at, NEW.callback_token_form)
  ON CONFLICT (id) DO UPDATE SET
      status = EXCLUDED.status, originator_conversation_id = EXCLUDED.originator_conversation_id,
      conversation_id = EXCLUDED.conversation_id, receipt = EXCLUDED.receipt, result_code = EXCLUDED.result_code,
      result_desc = EXCLUDED.result_desc, last_error = EXCLUDED.last_error,
      status_query_attempts = EXCLUDED.status_query_attempts, next_status_query_at = EXCLUDED.next_status_query_at,
      settled_at = EXCLUDED.settled_at, updated_at = EXCLUDED.updated_at
    WHERE refunds.status IN ('PENDING', 'UNKNOWN');
  RETURN NULL;
END
$$;

CREATE TRIGGER payment_reversals_as_refunds AFTER INSERT OR UPDATE ON payment_reversals
  FOR EACH ROW EXECUTE FUNCTION mteja_reversal_as_refund();
