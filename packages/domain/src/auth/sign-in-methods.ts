/**
 * The ways into an account (docs/step-up.md#the-last-way-in): its password, its verified phone (an SMS
 * code), each linked outside account (Google) and each of its passkeys. Removing or unlinking one checks
 * that another stays (409 LAST_SIGN_IN_METHOD).
 */
import { identities, passkeys, type AnyClient } from "@mteja/db";

export interface SignInMethods {
  password: boolean;
  verifiedPhone: boolean;
  linkedIdentities: number;
  passkeys: number;
  total: number;
}

/** `phone` left out: the caller read only `phoneVerified`, which a verified phone implies. */
export async function signInMethodsOf(
  db: AnyClient,
  user: { id: string; passwordHash: string | null; phone?: string | null; phoneVerified: boolean },
): Promise<SignInMethods> {
  const password = user.passwordHash !== null;
  const verifiedPhone = user.phoneVerified && user.phone !== null;
  const [passkeyCount, linked] = [await passkeys.countOf(db, user.id), await identities.countOf(db, user.id)];
  return {
    password,
    verifiedPhone,
    linkedIdentities: linked,
    passkeys: passkeyCount,
    total: Number(password) + Number(verifiedPhone) + linked + passkeyCount,
  };
}
