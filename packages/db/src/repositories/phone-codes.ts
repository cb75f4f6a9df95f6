/**
 * The phone_codes table: codes texted to a phone for sign-in or for verifying an account's phone,
 * only their hashes stored. Which codes still count (unexpired, under their tries) is the caller's,
 * passed as instants and numbers.
 */
import type { PhoneCode } from "../generated/prisma/client.js";
import { prismaOf, type AnyClient } from "./clients.js";

export type { PhoneCode } from "../generated/prisma/client.js";

/**
 * Makes the caller's transaction the only one working on this phone's codes until it ends (a
 * transaction-scoped advisory lock), so counting and writing them cannot interleave.
 */
export async function lockPhone(tx: AnyClient, tenantId: string, phone: string): Promise<void> {
  await prismaOf(tx).$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`phone-code:${tenantId}:${phone}`}))`;
}

/** How many codes were texted to the phone after `since`. */
export async function countSentSince(db: AnyClient, phone: string, since: Date): Promise<number> {
  return prismaOf(db).phoneCode.count({ where: { phone, createdAt: { gt: since } } });
}

/** Whose codes: an account's (whatever phone they went to), or a phone's. */
export type CodeHolder = { userId: string | null } | { phone: string };

/** Marks the holder's unused codes of this purpose used at `at`. */
export async function retireUnused(tx: AnyClient, purpose: string, holder: CodeHolder, at: Date): Promise<void> {
  await prismaOf(tx).phoneCode.updateMany({ where: { purpose, usedAt: null, ...holder }, data: { usedAt: at } });
}

export interface NewPhoneCode {
  tenantId: string;
  phone: string;
  purpose: string;
  userId: string | null;
  codeHash: string;
  expiresAt: Date;
  createdAt: Date;
}

export async function create(tx: AnyClient, code: NewPhoneCode): Promise<void> {
  await prismaOf(tx).phoneCode.create({ data: code });
}

/** The newest unused code of this purpose, sent to `phone` and/or for `userId`, unexpired at `unexpiredAt` if given. */
export async function findNewestUnused(
  db: AnyClient,
  query: { purpose: string; phone?: string | undefined; userId?: string | undefined; unexpiredAt?: Date | undefined },
): Promise<PhoneCode | null> {
  return prismaOf(db).phoneCode.findFirst({
    where: {
      purpose: query.purpose,
      usedAt: null,
      ...(query.unexpiredAt !== undefined ? { expiresAt: { gt: query.unexpiredAt } } : {}),
      ...(query.phone !== undefined ? { phone: query.phone } : {}),
      ...(query.userId !== undefined ? { userId: query.userId } : {}),
    },
    orderBy: { createdAt: "desc" },
  });
}

/** Takes one try of the unused code, in one conditional update, unless it had `maxTries` already; whether it did. */
export async function takeTry(db: AnyClient, codeId: string, maxTries: number): Promise<boolean> {
  const tried = await prismaOf(db).phoneCode.updateMany({
    where: { id: codeId, usedAt: null, attempts: { lt: maxTries } },
    data: { attempts: { increment: 1 } },
  });
  return tried.count === 1;
}

/** Marks the code used at `at` unless it already is; whether it did. */
export async function spend(db: AnyClient, codeId: string, at: Date): Promise<boolean> {
  const spent = await prismaOf(db).phoneCode.updateMany({ where: { id: codeId, usedAt: null }, data: { usedAt: at } });
  return spent.count === 1;
}

/** The phone's codes that named no account now name `userId`. */
export async function linkToAccount(tx: AnyClient, phone: string, userId: string): Promise<void> {
  await prismaOf(tx).phoneCode.updateMany({ where: { phone, userId: null }, data: { userId } });
}
