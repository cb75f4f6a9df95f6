/**
 * The signing_keys table: the access-token signing keys, shared by every tenant (so on the unscoped
 * client), at most one current key per algorithm (a partial unique index), retired keys with the end
 * of the last token they may have signed.
 */
import type { SigningKey } from "../generated/prisma/client.js";
import { prismaOf, type AnyClient } from "./clients.js";

export type { SigningKey } from "../generated/prisma/client.js";

/** Makes the caller's transaction the only one changing the keys until it ends (rotations, the first key). */
export async function lockForChange(tx: AnyClient): Promise<void> {
  await prismaOf(tx).$executeRawUnsafe(`LOCK TABLE signing_keys IN EXCLUSIVE MODE`);
}

/** The current key of the algorithm (not retired), if any; of any algorithm when none is named. */
export async function findCurrent(db: AnyClient, algorithm?: string): Promise<SigningKey | null> {
  const where = { ...(algorithm !== undefined ? { algorithm } : {}), retiredAt: null };
  return prismaOf(db).signingKey.findFirst({ where });
}

export async function countCurrent(db: AnyClient, algorithm: string): Promise<number> {
  return prismaOf(db).signingKey.count({ where: { algorithm, retiredAt: null } });
}

/** The current key of the algorithm, and the retired ones whose tokens may still be valid after `at`; newest first. */
export async function findCurrentAndValidAfter(db: AnyClient, algorithm: string, at: Date): Promise<SigningKey[]> {
  return prismaOf(db).signingKey.findMany({
    where: { algorithm, OR: [{ retiredAt: null }, { notAfter: { gt: at } }] },
    orderBy: { createdAt: "desc" },
  });
}

/** Retires the key at `at`: no token it signed is valid after `notAfter`. */
export async function retire(tx: AnyClient, kid: string, { at, notAfter }: { at: Date; notAfter: Date }) {
  await prismaOf(tx).signingKey.update({ where: { kid }, data: { retiredAt: at, notAfter } });
}

export interface NewSigningKey {
  kid: string;
  algorithm: string;
  publicJwk: object;
  /** The PKCS#8 PEM, encrypted with DATA_ENCRYPTION_KEY. */
  privateKeyEnc: string;
  createdAt: Date;
}

export async function insert(tx: AnyClient, key: NewSigningKey): Promise<void> {
  await prismaOf(tx).signingKey.create({ data: key });
}
