/**
 * The ways into an account (docs/sign-in.md): its password, its verified phone (an SMS code) and each
 * of its passkeys. Removing one checks that another stays (409 LAST_SIGN_IN_METHOD); a new kind of
 * way in (a linked Google account) adds its count here.
 */
import { passkeys, type AnyClient } from "@mteja/db";

export interface SignInMethods {
  password: boolean;
  verifiedPhone: boolean;
  passkeys: number;
  total: number;
}

export async function signInMethodsOf(
  db: AnyClient,
  user: { id: string; passwordHash: string | null; phone: string | null; phoneVerified: boolean },
): Promise<SignInMethods> {
  const password = user.passwordHash !== null;
  const verifiedPhone = user.phoneVerified && user.phone !== null;
  const passkeyCount = await passkeys.countOf(db, user.id);
  return { password, verifiedPhone, passkeys: passkeyCount, total: Number(password) + Number(verifiedPhone) + passkeyCount };
}
