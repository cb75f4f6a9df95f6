-- Phone sign-in by SMS (docs/phone-sign-in.md) and the SMS outbox (docs/sms.md). An account created by
-- phone has no email, name or password yet; a verified phone signs in and is unique per tenant among
-- verified phones (unverified ones may repeat: anyone can type any number into a profile).

-- AlterTable
ALTER TABLE "users" ALTER COLUMN "email" DROP NOT NULL,
                    ALTER COLUMN "name" DROP NOT NULL,
                    ALTER COLUMN "password_hash" DROP NOT NULL,
                    ADD COLUMN "phone_verified" BOOLEAN NOT NULL DEFAULT false;

-- Not expressible in Prisma's schema language (a partial index).
CREATE UNIQUE INDEX "users_one_verified_phone_per_tenant" ON "users"("tenant_id", "phone") WHERE "phone_verified";

-- CreateTable
CREATE TABLE "phone_codes" (
    "id" UUID NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "phone" TEXT NOT NULL,
    "purpose" TEXT NOT NULL,
    "user_id" UUID,
    "code_hash" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "used_at" TIMESTAMPTZ(3),
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "phone_codes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sms_outbox" (
    "id" UUID NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "to_phone" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "locked_until" TIMESTAMPTZ(3),
    "expires_at" TIMESTAMPTZ(3),
    "sent_at" TIMESTAMPTZ(3),
    "last_error" TEXT,
    "send_status" TEXT,
    "provider_message_id" TEXT,
    "delivery_status" TEXT,
    "delivery_failure_reason" TEXT,
    "delivery_updated_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sms_outbox_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "phone_codes_tenant_id_phone_created_at_idx" ON "phone_codes"("tenant_id", "phone", "created_at");

-- CreateIndex
CREATE INDEX "sms_outbox_sent_at_next_attempt_at_idx" ON "sms_outbox"("sent_at", "next_attempt_at");

-- CreateIndex
CREATE INDEX "sms_outbox_provider_message_id_idx" ON "sms_outbox"("provider_message_id");
