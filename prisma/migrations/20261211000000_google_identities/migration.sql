-- Sign in with Google (docs/sign-in.md#sign-in-with-google): the Google accounts linked to users, found
-- by the provider's `sub` (one per tenant; one Google account per user), and the nonces handed out for
-- the ID-token flow (single use, 5 minutes; only their hashes). Expand only: two new tables.

-- CreateTable
CREATE TABLE "user_identities" (
    "id" UUID NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "user_id" UUID NOT NULL,
    "provider" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "email" TEXT,
    "linked_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "user_identities_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "user_identities_tenant_id_provider_subject_key" ON "user_identities"("tenant_id", "provider", "subject");

-- CreateIndex
CREATE UNIQUE INDEX "user_identities_user_id_provider_key" ON "user_identities"("user_id", "provider");

-- AddForeignKey
ALTER TABLE "user_identities" ADD CONSTRAINT "user_identities_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- CreateTable
CREATE TABLE "oidc_nonces" (
    "id" UUID NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "nonce_hash" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "oidc_nonces_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "oidc_nonces_nonce_hash_key" ON "oidc_nonces"("nonce_hash");

-- CreateIndex
CREATE INDEX "oidc_nonces_expires_at_idx" ON "oidc_nonces"("expires_at");
