/**
 * The oidc_nonces table: nonces handed out for an ID token from the provider (Google One Tap, mobile),
 * only their hashes. Which are still good (unexpired) is the caller's, passed as an instant.
 */
import { prismaOf, type AnyClient } from "./clients.js";

/** Stores the nonce; nonces of the client's tenant that expired before `createdAt` unused go at the same time. */
export interface NewNonce {
  tenantId: string;
  nonceHash: string;
  expiresAt: Date;
  createdAt: Date;
}

export async function create(db: AnyClient, nonce: NewNonce): Promise<void> {
  await prismaOf(db).oidcNonce.deleteMany({ where: { expiresAt: { lt: nonce.createdAt } } });
  await prismaOf(db).oidcNonce.create({ data: nonce });
}

/**
 * Spends the nonce: it is gone after this call whether it was good or not (one statement, so two
 * uses at once cannot both find it). Answers whether it existed, unexpired at `unexpiredAt`.
 */
export async function spend(db: AnyClient, nonceHash: string, unexpiredAt: Date): Promise<boolean> {
  const [spent] = await prismaOf(db).oidcNonce.findMany({ where: { nonceHash }, select: { id: true, expiresAt: true } });
  if (!spent) return false;
  const deleted = await prismaOf(db).oidcNonce.deleteMany({ where: { id: spent.id } });
  return deleted.count === 1 && spent.expiresAt > unexpiredAt;
}
