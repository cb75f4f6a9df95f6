-- The session that started an email change (docs/email.md#the-link): me/email/verify accepts the link's
-- token from that session only, so a link mailed to an address someone else reads cannot be used on
-- another session of the account (a stolen one). Null for the other purposes, and for change links
-- mailed before this column existed: those are refused and the customer asks again. Expand only.
-- AlterTable
ALTER TABLE "one_time_tokens" ADD COLUMN "session_id" UUID;
