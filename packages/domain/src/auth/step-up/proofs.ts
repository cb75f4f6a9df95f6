/**
 * The proofs reauthenticate takes (docs/step-up.md#reauthenticate): one of the account's current
 * sign-in factors, and with two-factor on its code as well. A passkey assertion (`{ passkey }`, to the
 * options of /reauthenticate/passkey/options) is the next kind: it joins this union, with a case in
 * `confirmFirstFactor`, and — with user verification — needs no `code`.
 */
import type { Text } from "@mteja/i18n";
import type { z } from "zod";
import { DomainError } from "../../shared/errors.js";
import type { AuthedCtx } from "../ports.js";
import { confirmSecondFactor } from "../otp/second-factor.js";
import { confirmPassword, confirmVerifiedPhoneCode, type ConfirmingUser } from "../phone/confirm-identity.js";
import type { reauthenticateInput } from "./schemas.js";

export type ReauthenticationProof =
  | { kind: "password"; password: string; code: string | undefined }
  | { kind: "sms_code"; smsCode: string; code: string | undefined };

/** The method a `reauthenticated` security event names. */
export type ProofMethod = "password" | "sms";

function invalid(path: string, message: Text): DomainError {
  return new DomainError("VALIDATION_ERROR", undefined, { details: [{ path, message }] });
}

/** The one proof the body carries: 422 for none or both of `password` and `sms_code`. */
export function proofOf(input: z.infer<typeof reauthenticateInput>): ReauthenticationProof {
  const code = input.code?.trim() ? input.code : undefined;
  if (input.password !== undefined && input.sms_code === undefined) return { kind: "password", password: input.password, code };
  if (input.sms_code !== undefined && input.password === undefined) return { kind: "sms_code", smsCode: input.sms_code, code };
  throw invalid("password", "detail.password_or_sms_code");
}

/**
 * Throws unless the proof checks against the account's factors as they are: 422 without `code` while
 * two-factor is on; 401 INVALID_CREDENTIALS for a wrong password, 401 INVALID_OTP for a wrong SMS or
 * two-factor code, each counted as a failed sign-in of the account.
 */
export async function confirmProof(ctx: AuthedCtx, user: ConfirmingUser, proof: ReauthenticationProof): Promise<ProofMethod> {
  if (user.otpEnabled && proof.code === undefined) throw invalid("code", { key: "validation.required", params: { field: "code" } });
  const method = await confirmFirstFactor(ctx, user, proof);
  if (user.otpEnabled) await confirmSecondFactor(ctx, user, proof.code!);
  return method;
}

async function confirmFirstFactor(ctx: AuthedCtx, user: ConfirmingUser, proof: ReauthenticationProof): Promise<ProofMethod> {
  switch (proof.kind) {
    case "password":
      await confirmPassword(ctx, user, proof.password);
      return "password";
    case "sms_code":
      await confirmVerifiedPhoneCode(ctx, user, proof.smsCode);
      return "sms";
    default:
      return proof satisfies never;
  }
}
