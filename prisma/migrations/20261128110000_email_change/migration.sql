-- Email management (docs/email.md): a `change_email` link confirms a new address for its account. The
-- address travels with the token, not in the account, until the link is opened.

-- AlterTable
ALTER TABLE "one_time_tokens" ADD COLUMN "email" TEXT;
