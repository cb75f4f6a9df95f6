/**
 * The passkeys and passkey_challenges tables (docs/sign-in.md#passkeys): an account's WebAuthn
 * credentials, and the hashed challenges of their ceremonies. Which challenges still count (unused,
 * unexpired) and what a counter may do are the caller's, passed as instants and numbers.
 */
import type { Passkey, Prisma } from "../generated/prisma/client.js";
import { prismaOf, type AnyClient } from "./clients.js";

export type { Passkey } from "../generated/prisma/client.js";

export interface NewPasskey {
  tenantId: string;
  userId: string;
  credentialId: string;
  publicKey: Uint8Array;
  counter: number;
  transports: string[];
  name: string;
  backedUp: boolean;
  createdAt: Date;
}

/** The stored COSE public key as bytes. */
export function publicKeyOf(passkey: Passkey): Uint8Array<ArrayBuffer> {
  return new Uint8Array(Buffer.from(passkey.publicKey, "base64url"));
}

/** The stored transports (a JSON array of strings; anything else reads as none). */
export function transportsOf(passkey: Passkey): string[] {
  return Array.isArray(passkey.transports) ? passkey.transports.filter((item): item is string => typeof item === "string") : [];
}

export async function create(tx: AnyClient, passkey: NewPasskey): Promise<Passkey> {
  const { publicKey, ...rest } = passkey;
  return prismaOf(tx).passkey.create({ data: { ...rest, publicKey: Buffer.from(publicKey).toString("base64url"), counter: BigInt(passkey.counter) } });
}

/** A page of a keyset list: the list's conditions (ANDed with the owner), its order and size. */
export interface PasskeyPage {
  where: readonly Prisma.PasskeyWhereInput[];
  orderBy: readonly Prisma.PasskeyOrderByWithRelationInput[];
  take: number;
}

/** One page of the account's passkeys. */
export async function pageOfUser(db: AnyClient, userId: string, page: PasskeyPage): Promise<Passkey[]> {
  return prismaOf(db).passkey.findMany({ where: { AND: [{ userId }, ...page.where] }, orderBy: [...page.orderBy], take: page.take });
}

/** The account's passkeys, oldest first. */
export async function listOf(db: AnyClient, userId: string): Promise<Passkey[]> {
  return prismaOf(db).passkey.findMany({ where: { userId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
}

export async function countOf(db: AnyClient, userId: string): Promise<number> {
  return prismaOf(db).passkey.count({ where: { userId } });
}

export async function findByCredentialId(db: AnyClient, credentialId: string): Promise<Passkey | null> {
  return prismaOf(db).passkey.findFirst({ where: { credentialId } });
}

/** Deletes the account's passkey; whether there was one. */
export async function remove(tx: AnyClient, userId: string, id: string): Promise<Passkey | null> {
  const found = await prismaOf(tx).passkey.findFirst({ where: { id, userId } });
  if (!found) return null;
  const deleted = await prismaOf(tx).passkey.deleteMany({ where: { id, userId } });
  return deleted.count === 1 ? found : null;
}

/**
 * Records a use: the counter moves to `counter` and `last_used_at` to `at`, in one conditional update
 * that only passes while the stored counter is still `expected` (two assertions verified at once: one
 * wins). Whether it did.
 */
export async function recordUse(db: AnyClient, id: string, use: { expected: bigint; counter: number; at: Date; backedUp: boolean }): Promise<boolean> {
  const updated = await prismaOf(db).passkey.updateMany({
    where: { id, counter: use.expected },
    data: { counter: BigInt(use.counter), lastUsedAt: use.at, backedUp: use.backedUp },
  });
  return updated.count === 1;
}

/**
 * Locks the account's row for the caller's transaction, so counting its ways in and removing one
 * cannot interleave with another removal (the last way in is never removed by two calls at once).
 */
export async function lockOwner(tx: AnyClient, userId: string): Promise<void> {
  await prismaOf(tx).$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`passkeys:${userId}`}))`;
}

export interface NewChallenge {
  tenantId: string;
  purpose: string;
  userId: string | null;
  sessionId: string | null;
  challengeHash: string;
  expiresAt: Date;
  createdAt: Date;
}

export async function createChallenge(db: AnyClient, challenge: NewChallenge): Promise<void> {
  await prismaOf(db).passkeyChallenge.create({ data: challenge });
}

/**
 * Spends the challenge with this hash, purpose and holder, unexpired at `at`, in one conditional
 * update: the first call wins, any later one (on any instance) finds it used. Whether it did.
 */
export async function spendChallenge(
  db: AnyClient,
  query: { challengeHash: string; purpose: string; userId: string | null; sessionId: string | null; at: Date },
): Promise<boolean> {
  const spent = await prismaOf(db).passkeyChallenge.updateMany({
    where: {
      challengeHash: query.challengeHash,
      purpose: query.purpose,
      userId: query.userId,
      sessionId: query.sessionId,
      usedAt: null,
      expiresAt: { gt: query.at },
    },
    data: { usedAt: query.at },
  });
  return spent.count === 1;
}
