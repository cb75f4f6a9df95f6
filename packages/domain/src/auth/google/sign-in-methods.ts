/**
 * The ways to sign in to an account (docs/step-up.md#the-last-way-in): a password, a verified phone, a
 * linked Google account and a passkey. Removing or unlinking the last one answers 409 LAST_SIGN_IN_METHOD.
 */
export interface SignInMethods {
  hasPassword: boolean;
  phoneVerified: boolean;
  googleLinked: boolean;
  passkeys: number;
}

/** How many ways in the account would keep without the one being removed. */
export function methodsLeftWithout(methods: SignInMethods, removing: "google"): number {
  const left = { ...methods, ...(removing === "google" ? { googleLinked: false } : {}) };
  return [left.hasPassword, left.phoneVerified, left.googleLinked].filter(Boolean).length + left.passkeys;
}
