/**
 * When me/phone/start and me/phone/verify are sensitive (docs/step-up.md): for every phone but the
 * account's current verified phone. A code texted to the verified phone is how an account without a
 * password proves itself, so asking for one needs no fresh session; a code to any other phone would
 * make that phone the account's, and with it the account's SMS sign-in.
 */
import { phoneCodes } from "@mteja/db";
import { stepUpCondition, type StepUpAccount } from "../../shared/operation-meta.js";
import { mePhoneStartInput } from "./schemas.js";

function isVerifiedPhone(account: StepUpAccount, phone: string | null | undefined): boolean {
  return account.phoneVerified && account.phone !== null && phone === account.phone;
}

/** me/phone/start: the phone named (default: the account's) is not its verified phone, or cannot be read. */
export const startsAnotherPhone = stepUpCondition("the phone is not the account's verified phone", ({ account, input }) => {
  const parsed = mePhoneStartInput.safeParse(input ?? {});
  return !parsed.success || !isVerifiedPhone(account, parsed.data.phone ?? account.phone);
});

/**
 * me/phone/verify: the code it would spend (the account's one live "verify" code: issuing one retires
 * the one before) was texted to another phone than the verified one, or there is none.
 */
export const verifiesAnotherPhone = stepUpCondition("the code was texted to a phone other than the account's verified phone", async ({ account, db }) => {
  const pending = await phoneCodes.findNewestUnused(db, { purpose: "verify", userId: account.id });
  return !pending || !isVerifiedPhone(account, pending.phone);
});
