/** The recovery_codes table: a user's single-use two-factor recovery codes, stored only as hashes. */
import { prismaOf, type AnyClient } from "./clients.js";

/** Marks the user's unused code with this hash used at `at`; whether there was one. */
export async function spend(db: AnyClient, userId: string, codeHash: string, at: Date): Promise<boolean> {
  const used = await prismaOf(db).recoveryCode.updateMany({
    where: { userId, codeHash, usedAt: null },
    data: { usedAt: at },
  });
  return used.count === 1;
}

/** The user's codes become these (the old ones, used or not, are deleted). */
export async function replace(tx: AnyClient, userId: string, codeHashes: readonly string[], createdAt: Date) {
  const prisma = prismaOf(tx);
  await prisma.recoveryCode.deleteMany({ where: { userId } });
  await prisma.recoveryCode.createMany({ data: codeHashes.map((codeHash) => ({ userId, codeHash, createdAt })) });
}

export async function deleteAllOf(tx: AnyClient, userId: string): Promise<void> {
  await prismaOf(tx).recoveryCode.deleteMany({ where: { userId } });
}
