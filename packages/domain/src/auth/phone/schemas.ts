import { z } from "zod";
import { envelope, messageOnly } from "../../shared/envelope.js";
import { kenyanPhoneField, oneLineString, personNameField } from "../../shared/fields.js";
import { guestTokenField } from "../guest/schemas.js";

/** Six digits as typed (spaces allowed); anything else is simply a wrong code (401), never a hint. */
const smsCodeField = oneLineString({ error: "code is required" })
  .max(20, "code is too long")
  .transform((value) => value.replace(/\s+/g, ""));

export const phoneStartInput = z.object({ phone: kenyanPhoneField });
export const phoneStartOutput = messageOnly;

export const phoneVerifyInput = z.object({
  phone: kenyanPhoneField,
  code: smsCodeField,
  name: personNameField.optional().describe("The name of an account created by this sign-in (ignored for an existing one)"),
  guest_token: guestTokenField.optional(),
});

export const mePhoneStartInput = z.object({ phone: kenyanPhoneField.optional().describe("Default: the account's phone") });
export const mePhoneStartOutput = messageOnly;

export const mePhoneVerifyInput = z.object({ code: smsCodeField });
export const mePhoneVerifyOutput = envelope(
  z.object({
    phone: z.string(),
    phone_verified: z.literal(true),
    access_token: z.string().optional().describe('On a guest session only: the guest is now a customer, and this is its new access token (role "customer")'),
  }),
);

/** For confirmations by accounts without a password (change-password, 2FA disable). */
export const smsCodeProofField = smsCodeField.describe("For an account without a password: a code from /api/v1/auth/me/phone/start");

/**
 * An input confirmed by the password or, for an account without one, an `sms_code`: one of the two
 * must be there (which one the account needs is decided by `confirmIdentity`).
 */
export function requirePasswordOrSmsCode(passwordField: string) {
  const check = (value: Record<string, unknown>, ctx: z.RefinementCtx) => {
    if (value[passwordField] === undefined && value.sms_code === undefined) {
      ctx.addIssue({ code: "custom", path: [passwordField], message: `${passwordField} is required (sms_code for an account without a password)` });
    }
  };
  // Checked even when another field failed, so one answer names every missing field.
  return [check, { when: (payload: { value: unknown }) => typeof payload.value === "object" && payload.value !== null }] as const;
}
