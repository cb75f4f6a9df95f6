import { z } from "zod";
import { envelope, messageOnly } from "../../shared/envelope.js";
import { passwordField } from "../../shared/fields.js";
import { smsCodeProofField } from "../phone/schemas.js";
import { secondFactorProofField } from "../otp/schemas.js";

/**
 * One proof of the account's current factors (docs/step-up.md#reauthenticate): `password`, or
 * `sms_code` from /api/v1/auth/reauthenticate/sms; with two-factor on, `code` as well. Which of the two
 * was sent is decided by the service (auth/step-up/proofs.ts), so both stay optional here.
 */
export const reauthenticateInput = z.object({
  password: passwordField.optional().describe("The account's password"),
  sms_code: smsCodeProofField.optional().describe("A code from /api/v1/auth/reauthenticate/sms, texted to the account's verified phone"),
  code: secondFactorProofField.optional(),
});

export const reauthenticateOutput = envelope(
  z.object({ fresh_until: z.string().describe("Until when this session may make sensitive changes (ISO 8601)").meta({ examples: ["2026-11-28T10:05:00.000Z"] }) }),
);

export const reauthenticateSmsOutput = messageOnly;
