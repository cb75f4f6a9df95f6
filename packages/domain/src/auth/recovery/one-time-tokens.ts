/**
 * Emailed one-time tokens (docs/sessions.md#emailed-tokens): 32 random bytes as hex in the link,
 * stored only as SHA-256 in one_time_tokens, single use; reset 30 minutes, verification and an email
 * change (docs/email.md) 24 hours. A change's token also carries the address it confirms, whether its
 * start was made on a fresh session (only then may that address reset the password), and that session
 * (only it may use the link).
 */
import { oneTimeTokens, type TenantTx } from "@mteja/db";
import type { AuthPorts } from "../ports.js";
import { DomainError } from "../../shared/errors.js";
import { addSeconds } from "../sessions/sessions.js";
import { randomToken, sha256 } from "../../shared/secrets.js";

type Tx = TenantTx;

export type EmailTokenPurpose = "verify_email" | "reset_password" | "change_email";

export const emailTokenLifetimeSeconds: Record<EmailTokenPurpose, number> = {
  verify_email: 24 * 3600,
  reset_password: 30 * 60,
  // A change's link verifies an address too: it lasts as long as the verification link.
  change_email: 24 * 3600,
};

const tokenShape = /^[0-9a-f]{64}$/;

/** reset-password answers INVALID_TOKEN with 400 (docs/errors.md); verify-email answers the same way. */
export function invalidEmailToken(): DomainError {
  return new DomainError("INVALID_TOKEN", "auth.link_invalid", { status: 400 });
}

/** Stores a new token for the user and returns it in clear (for the link; never stored). */
export async function createEmailToken(
  deps: AuthPorts,
  tx: Tx,
  user: { id: string; tenantId: string },
  purpose: Exclude<EmailTokenPurpose, "change_email">,
  token: string = randomToken(deps.random, "hex"),
): Promise<string> {
  return insertEmailToken(deps, tx, user, purpose, token, { email: null, fromFreshSession: false, sessionId: null });
}

/**
 * Stores the token of a link that confirms `newEmail` for the user, with the session that started the
 * change and whether it was fresh; returns it in clear.
 */
export async function createEmailChangeToken(
  deps: AuthPorts,
  tx: Tx,
  user: { id: string; tenantId: string },
  change: { newEmail: string; fromFreshSession: boolean; sessionId: string },
): Promise<string> {
  return insertEmailToken(deps, tx, user, "change_email", randomToken(deps.random, "hex"), {
    email: change.newEmail,
    fromFreshSession: change.fromFreshSession,
    sessionId: change.sessionId,
  });
}

async function insertEmailToken(
  deps: AuthPorts,
  tx: Tx,
  user: { id: string; tenantId: string },
  purpose: EmailTokenPurpose,
  token: string,
  change: { email: string | null; fromFreshSession: boolean; sessionId: string | null },
): Promise<string> {
  const now = deps.clock.now();
  await oneTimeTokens.create(tx, {
    tenantId: user.tenantId,
    userId: user.id,
    purpose,
    tokenHash: sha256(token),
    email: change.email,
    fromFreshSession: change.fromFreshSession,
    sessionId: change.sessionId,
    createdAt: now,
    expiresAt: addSeconds(now, emailTokenLifetimeSeconds[purpose]),
  });
  return token;
}

/** Spends every unused token of this purpose (a newer link replaces them, or one was just used). */
export async function revokeEmailTokens(deps: AuthPorts, tx: Tx, user: { id: string; tenantId: string }, purpose: EmailTokenPurpose): Promise<void> {
  await oneTimeTokens.spendUnused(tx, { userId: user.id, tenantId: user.tenantId }, purpose, deps.clock.now());
}

export interface TokenOwner {
  id: string;
  tenantId: string;
  email: string | null;
  name: string | null;
  emailVerified: boolean;
  /** Whether the account has a password (a reset replaces one; it never sets the first). */
  hasPassword: boolean;
  /** Whether its email may reset the password (docs/email.md#which-address-resets-the-password). */
  emailResetsPassword: boolean;
}

/**
 * The token of the link, provided it has this purpose, is unused and unexpired, and belongs to the
 * account with this email in this tenant; undefined otherwise (one answer for every reason).
 */
export async function findEmailToken(
  deps: AuthPorts,
  db: Tx,
  query: { tenantId: string; email: string; purpose: Exclude<EmailTokenPurpose, "change_email">; token: string },
): Promise<{ id: string; user: TokenOwner } | undefined> {
  const row = await findLiveEmailToken(deps, db, query);
  if (!row || row.user.email !== query.email) return undefined;
  return { id: row.id, user: row.user };
}

/**
 * The token of a change link, provided it is unused, unexpired, and was issued to the signed-in
 * account (`userId`) in this tenant; with the address it confirms and the session that started it
 * (null for a link mailed before links named it). Undefined otherwise.
 */
export async function findEmailChangeToken(
  deps: AuthPorts,
  db: Tx,
  query: { tenantId: string; userId: string; token: string },
): Promise<{ id: string; newEmail: string; fromFreshSession: boolean; sessionId: string | null; user: TokenOwner } | undefined> {
  const row = await findLiveEmailToken(deps, db, { ...query, purpose: "change_email" });
  if (!row || row.user.id !== query.userId || row.email === null) return undefined;
  return { id: row.id, newEmail: row.email, fromFreshSession: row.fromFreshSession, sessionId: row.sessionId, user: row.user };
}

/** A token of this purpose, unused and unexpired, of an account of this tenant. */
async function findLiveEmailToken(deps: AuthPorts, db: Tx, query: { tenantId: string; purpose: EmailTokenPurpose; token: string }) {
  if (!tokenShape.test(query.token)) return undefined;
  const row = await oneTimeTokens.findWithOwner(db, sha256(query.token));
  if (!row || row.purpose !== query.purpose || row.usedAt !== null || row.expiresAt <= deps.clock.now()) return undefined;
  if (row.tenantId !== query.tenantId || row.user.tenantId !== query.tenantId) return undefined;
  const { passwordHash, ...user } = row.user;
  return { ...row, user: { ...user, hasPassword: passwordHash !== null } };
}

/** Marks the token used; false when a concurrent request spent it first (or it expired meanwhile). */
export async function spendEmailToken(deps: AuthPorts, tx: Tx, tokenId: string): Promise<boolean> {
  const now = deps.clock.now();
  return oneTimeTokens.spend(tx, tokenId, now, { unexpiredAt: now });
}
