-- Guest checkout (docs/sign-in.md#guest-checkout). Expand-only.
-- A two-factor sign-in that takes over a guest (guest_token) names the guest on its otp_token, so the
-- guest is merged only once otp/validate completes the sign-in.
ALTER TABLE "one_time_tokens" ADD COLUMN "guest_user_id" UUID;

-- The retention job finds the guests left unused: role 'guest', oldest first.
CREATE INDEX "users_guests_by_created_at" ON "users" ("created_at") WHERE "role" = 'guest';
