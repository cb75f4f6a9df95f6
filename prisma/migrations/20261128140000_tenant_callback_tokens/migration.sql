-- Callback URLs carry a token per tenant (docs/mpesa.md#callback-tokens) instead of MOMO_CALLBACK_SECRET
-- itself. Which form a request's callback URL carried is kept on its row: every payment, payout and
-- reversal written before this migration sent the shared secret ('shared'), so a callback for it may
-- still bring that; the service writes 'tenant' on every row it stores from now on. The default stays
-- 'shared' for rows an instance of the previous version still writes during a rolling upgrade.
ALTER TABLE "payments" ADD COLUMN "callback_token_form" TEXT NOT NULL DEFAULT 'shared';
ALTER TABLE "payments" ADD CONSTRAINT "payments_callback_token_form_valid" CHECK ("callback_token_form" IN ('shared', 'tenant'));
ALTER TABLE "payouts" ADD COLUMN "callback_token_form" TEXT NOT NULL DEFAULT 'shared';
ALTER TABLE "payouts" ADD CONSTRAINT "payouts_callback_token_form_valid" CHECK ("callback_token_form" IN ('shared', 'tenant'));
ALTER TABLE "payment_reversals" ADD COLUMN "callback_token_form" TEXT NOT NULL DEFAULT 'shared';
ALTER TABLE "payment_reversals" ADD CONSTRAINT "payment_reversals_callback_token_form_valid" CHECK ("callback_token_form" IN ('shared', 'tenant'));

-- C2B URLs are registered with Daraja per short code: an existing tenant's registered URLs carry the
-- shared secret until its URLs are registered again (the admin operation then records 'tenant'). A
-- tenant created from now on has none registered with the old form.
ALTER TABLE "tenants" ADD COLUMN "c2b_callback_token_form" TEXT NOT NULL DEFAULT 'shared';
ALTER TABLE "tenants" ALTER COLUMN "c2b_callback_token_form" SET DEFAULT 'tenant';
ALTER TABLE "tenants" ADD CONSTRAINT "tenants_c2b_callback_token_form_valid" CHECK ("c2b_callback_token_form" IN ('shared', 'tenant'));

-- The tenant whose token a stored callback's URL carried; null: the shared secret (or stored before).
ALTER TABLE "momo_callbacks" ADD COLUMN "token_tenant_id" TEXT;
