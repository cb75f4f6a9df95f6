-- An email that may reset the password (docs/email.md#which-address-resets-the-password): false for an
-- address attached by an email change started on a session that was not fresh (a phone-only account's
-- first email may be, docs/step-up.md), until the account confirms it again from a fresh session.
-- Until then forgot-password mails that address a notice, never a link, and reset-password refuses.

-- AlterTable
ALTER TABLE "users" ADD COLUMN "email_resets_password" BOOLEAN NOT NULL DEFAULT true;

-- Whether the change link's start was made on a fresh session; false for every link mailed before
-- this column existed (which start they came from is not known).
-- AlterTable
ALTER TABLE "one_time_tokens" ADD COLUMN "from_fresh_session" BOOLEAN NOT NULL DEFAULT false;

-- Accounts whose current address came from a first-email change (the only kind a session that is not
-- fresh could start), not replaced since by a change (which needs a fresh session): it is not known
-- whether that start was fresh, so the address must be confirmed again before it resets a password.
UPDATE "users" u SET "email_resets_password" = false
WHERE u."email" IS NOT NULL
  AND EXISTS (
    SELECT 1 FROM "security_events" e
    WHERE e."user_id" = u."id" AND e."type" = 'email.changed' AND e."details"->>'first' = 'true'
  )
  AND NOT EXISTS (
    SELECT 1 FROM "security_events" e
    WHERE e."user_id" = u."id" AND e."type" = 'email.changed' AND e."details"->>'first' = 'false'
  );
