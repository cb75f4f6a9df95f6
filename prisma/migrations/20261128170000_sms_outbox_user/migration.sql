-- A text written for a known account names it (docs/data-rights.md#evidence), so an erasure finds every
-- phone the account has had, also one it has changed since: a sign-in code texted to a phone that was
-- its, the notice of a change texted to the old phone. Null: a text to a phone no account had when it
-- was written (a sign-up code; the sign-up then links it), or written before this migration. Expand only.
ALTER TABLE "sms_outbox" ADD COLUMN "user_id" UUID;
CREATE INDEX "sms_outbox_tenant_id_user_id_idx" ON "sms_outbox"("tenant_id", "user_id");
