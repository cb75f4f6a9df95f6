/**
 * Nonces for the ID-token flow (One Tap, mobile): handed out by POST /oidc/google/nonce, put in the ID
 * token by Google, spent by the token's first use whether its checks pass or not. Only hashes stored.
 */
import { oidcNonces } from "@mteja/db";
import { randomToken, sha256 } from "../../shared/secrets.js";
import type { TenantCtx } from "../ports.js";

export const nonceTtlSeconds = 5 * 60;

export async function issueNonce(ctx: TenantCtx): Promise<{ nonce: string; expires_at: string }> {
  const { deps, tenant } = ctx;
  const nonce = randomToken(deps.random);
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + nonceTtlSeconds * 1000);
  await oidcNonces.create(ctx.db, { tenantId: tenant.id, nonceHash: sha256(nonce), expiresAt, createdAt: now });
  return { nonce, expires_at: expiresAt.toISOString() };
}

/** Spends the nonce (gone after this, good or not); whether it was one this tenant issued and still good. */
export async function spendNonce(ctx: TenantCtx, nonce: string | undefined): Promise<boolean> {
  if (!nonce) return false;
  return oidcNonces.spend(ctx.db, sha256(nonce), ctx.deps.clock.now());
}
