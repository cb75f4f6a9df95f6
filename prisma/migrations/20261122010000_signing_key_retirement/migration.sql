-- Signing keys carry the time after which no token they signed can still be valid, and there is at
-- most one current (not retired) key per algorithm, so instances starting at once agree on one key.

-- AlterTable
ALTER TABLE "signing_keys" ADD COLUMN "not_after" TIMESTAMPTZ(3);

-- Instances that started at once before this migration may have created a key each. The newest one
-- stays current (a restart signed with it); the others are retired and stay valid for the longest
-- access-token lifetime the settings allow (1 hour) plus the margin for instances not yet reloaded.
UPDATE "signing_keys" SET "retired_at" = now()
 WHERE "retired_at" IS NULL
   AND "kid" <> (SELECT "kid" FROM "signing_keys" k WHERE k."retired_at" IS NULL AND k."algorithm" = "signing_keys"."algorithm"
                  ORDER BY k."created_at" DESC, k."kid" DESC LIMIT 1);
UPDATE "signing_keys" SET "not_after" = "retired_at" + interval '65 minutes' WHERE "retired_at" IS NOT NULL;

-- A retired key has a "not after" time, a current one has none.
ALTER TABLE "signing_keys" ADD CONSTRAINT "signing_keys_not_after_iff_retired" CHECK (("retired_at" IS NULL) = ("not_after" IS NULL));

-- One current key per algorithm.
CREATE UNIQUE INDEX "signing_keys_one_current_per_algorithm" ON "signing_keys"("algorithm") WHERE "retired_at" IS NULL;
