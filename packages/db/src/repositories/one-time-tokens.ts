/**
 * The one_time_tokens table: hashed single-use tokens (emailed links, the otp_token of a two-factor
 * login). Which tokens still count (unexpired, under their attempts) is the caller's, passed as instants
 * and numbers.
 */
import { prismaOf, type AnyClient } from "./clients.js";
import type { RawSql } from "../raw-sql.js";

/** A token to store (only its hash; the token itself goes in the link). */
export interface NewOneTimeToken {
  tenantId: string;
  userId: string;
  purpose: string;
  tokenHash: string;
  /** The address a `change_email` link confirms, the session that started it and whether that session was fresh. */
  email?: string | null;
  fromFreshSession?: boolean;
  sessionId?: string | null;
  /** The guest an `otp_login` token's sign-in takes over when it completes. */
  guestUserId?: string | null;
  createdAt: Date;
  expiresAt: Date;
}

export async function create(db: AnyClient, token: NewOneTimeToken): Promise<void> {
  await prismaOf(db).oneTimeToken.create({ data: token });
}

/** The owner of a token as a link's check reads it. */
export interface TokenOwnerRow {
  id: string;
  tenantId: string;
  email: string | null;
  name: string | null;
  emailVerified: boolean;
  passwordHash: string | null;
  emailResetsPassword: boolean;
}

export interface TokenWithOwner {
  id: string;
  tenantId: string;
  purpose: string;
  email: string | null;
  fromFreshSession: boolean;
  sessionId: string | null;
  usedAt: Date | null;
  expiresAt: Date;
  user: TokenOwnerRow;
}

const ownerColumns = {
  id: true,
  tenantId: true,
  email: true,
  name: true,
  emailVerified: true,
  passwordHash: true,
  emailResetsPassword: true,
} as const;

/** The token with this hash and its account, whatever its state. */
export async function findWithOwner(db: AnyClient, tokenHash: string): Promise<TokenWithOwner | null> {
  return prismaOf(db).oneTimeToken.findUnique({
    where: { tokenHash },
    select: {
      id: true,
      tenantId: true,
      purpose: true,
      email: true,
      fromFreshSession: true,
      sessionId: true,
      usedAt: true,
      expiresAt: true,
      user: { select: ownerColumns },
    },
  });
}

/** Which unused tokens a read or a spend takes: unexpired at `unexpiredAt`, fewer than `attemptsBelow` tries. */
export interface Usable {
  unexpiredAt: Date;
  attemptsBelow: number;
}

/** The unused token with this hash and purpose that is still `usable`. */
export async function findUsable(db: AnyClient, query: { tokenHash: string; purpose: string } & Usable) {
  return prismaOf(db).oneTimeToken.findFirst({
    where: {
      tokenHash: query.tokenHash,
      purpose: query.purpose,
      usedAt: null,
      expiresAt: { gt: query.unexpiredAt },
      attempts: { lt: query.attemptsBelow },
    },
    select: { id: true, userId: true, guestUserId: true },
  });
}

/**
 * Takes one try of the tenant's unused token, provided it is still `usable`, in one conditional
 * UPDATE (however many requests race, no more tries than allowed are ever taken): the tries it has
 * used, this one included; undefined when none was left.
 */
export async function takeAttempt(db: RawSql, token: { id: string; tenantId: string } & Usable) {
  // Raw SQL is not scoped by a tenant's client: the tenant is named here.
  const rows = await db.$queryRaw<{ attempts: number }[]>`
    UPDATE one_time_tokens SET attempts = attempts + 1
     WHERE id = ${token.id}::uuid AND tenant_id = ${token.tenantId} AND used_at IS NULL
       AND expires_at > ${token.unexpiredAt} AND attempts < ${token.attemptsBelow}
     RETURNING attempts`;
  const row = rows[0];
  return row ? Number(row.attempts) : undefined;
}

/** Marks the token used at `at`, provided it is unused (and unexpired at `unexpiredAt`, when given); whether it did. */
export async function spend(db: AnyClient, tokenId: string, at: Date, { unexpiredAt }: { unexpiredAt?: Date } = {}) {
  const spent = await prismaOf(db).oneTimeToken.updateMany({
    where: { id: tokenId, usedAt: null, ...(unexpiredAt ? { expiresAt: { gt: unexpiredAt } } : {}) },
    data: { usedAt: at },
  });
  return spent.count === 1;
}

/** Whose tokens: the user's, of the tenant's only when it is given. */
export interface TokenHolder {
  userId: string;
  tenantId?: string;
}

/** The purposes a spend takes: one, several, or every one but one. */
export type Purposes = string | { in: readonly string[] } | { not: string };

/** Marks every unused token of the user with these purposes used at `at` (the tenant's only, when given). */
export async function spendUnused(db: AnyClient, owner: TokenHolder, purposes: Purposes, at: Date) {
  const purpose = typeof purposes === "string" || "not" in purposes ? purposes : { in: [...purposes.in] };
  const { userId, tenantId } = owner;
  await prismaOf(db).oneTimeToken.updateMany({
    where: { userId, ...(tenantId !== undefined ? { tenantId } : {}), purpose, usedAt: null },
    data: { usedAt: at },
  });
}
