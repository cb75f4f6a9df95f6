/**
 * The proofs reauthenticate takes (docs/step-up.md#reauthenticate): one of the account's current
 * sign-in factors, and with two-factor on its code as well — except a passkey assertion (`{ passkey }`,
 * to the options of /reauthenticate/passkey/options) with user verification, which is two factors.
 */
import type { Text } from "@mteja/i18n";
import type { z } from "zod";
import { DomainError } from "../../shared/errors.js";
import type { AuthedCtx } from "../ports.js";
import { confirmSecondFactor } from "../otp/second-factor.js";
import { confirmPassword, confirmVerifiedPhoneCode, type ConfirmingUser } from "../phone/confirm-identity.js";
import { confirmPasskey } from "../passkeys/reauthentication.js";
import type { reauthenticateInput } from "./schemas.js";

export type ReauthenticationProof =
  | { kind: "password"; password: string; code: string | undefined }
  | { kind: "sms_code"; smsCode: string; code: string | undefined }
  | { kind: "passkey"; passkey: NonNullable<z.infer<typeof reauthenticateInput>["passkey"]>; code: string | undefined };

/** The method a `reauthenticated` security event names. */
export type ProofMethod = "password" | "sms" | "passkey";

function invalid(path: string, message: Text): DomainError {
  return new DomainError("VALIDATION_ERROR", undefined, { details: [{ path, message }] });
}

/** The one proof the body carries: 422 for none, or more than one, of `password`, `sms_code` and `passkey`. */
export function proofOf(input: z.infer<typeof reauthenticateInput>): ReauthenticationProof {
  const code = input.code?.trim() ? input.code : undefined;
  const given = [input.password, input.sms_code, input.passkey].filter((proof) => proof !== undefined).length;
  if (given !== 1) throw invalid("password", "detail.password_or_sms_code");
  if (input.password !== undefined) return { kind: "password", password: input.password, code };
  if (input.sms_code !== undefined) return { kind: "sms_code", smsCode: input.sms_code, code };
  return { kind: "passkey", passkey: input.passkey!, code };
}

/**
 * Throws unless the proof checks against the account's factors as they are: 422 without `code` while
 * two-factor is on; 401 INVALID_CREDENTIALS for a wrong password, 401 INVALID_OTP for a wrong SMS or
 * two-factor code, each counted as a failed sign-in of the account.
 */
export async function confirmProof(ctx: AuthedCtx, user: ConfirmingUser, proof: ReauthenticationProof): Promise<ProofMethod> {
  const codeMissing = () => invalid("code", { key: "validation.required", params: { field: "code" } });
  // A passkey may be two factors by itself (user verification): whether it needs the code is known after it is checked.
  if (user.otpEnabled && proof.code === undefined && proof.kind !== "passkey") throw codeMissing();
  const { method, twoFactors } = await confirmFirstFactor(ctx, user, proof);
  if (user.otpEnabled && !twoFactors) {
    if (proof.code === undefined) throw codeMissing();
    await confirmSecondFactor(ctx, user, proof.code);
  }
  return method;
}

async function confirmFirstFactor(ctx: AuthedCtx, user: ConfirmingUser, proof: ReauthenticationProof): Promise<{ method: ProofMethod; twoFactors: boolean }> {
  switch (proof.kind) {
    case "password":
      await confirmPassword(ctx, user, proof.password);
      return { method: "password", twoFactors: false };
    case "sms_code":
      await confirmVerifiedPhoneCode(ctx, user, proof.smsCode);
      return { method: "sms", twoFactors: false };
    case "passkey": {
      const { userVerified } = await confirmPasskey(ctx, proof.passkey);
      return { method: "passkey", twoFactors: userVerified };
    }
    default:
      return proof satisfies never;
  }
}
