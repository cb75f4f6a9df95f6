-- Step-up (docs/step-up.md): a session is fresh until fresh_until, set when it is created (register or
-- a sign-in) and by reauthenticate; a refresh never changes it. Sessions created before this column,
-- or by an instance that does not know it yet, have none: they are not fresh.

-- AlterTable
ALTER TABLE "sessions" ADD COLUMN "fresh_until" TIMESTAMPTZ(3);
