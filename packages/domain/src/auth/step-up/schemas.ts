import { z } from "zod";
import { envelope, messageOnly } from "../../shared/envelope.js";
import { passwordField } from "../../shared/fields.js";
import { smsCodeProofField } from "../phone/schemas.js";
import { secondFactorProofField } from "../otp/schemas.js";
import { authenticationResponseField } from "../passkeys/schemas.js";

/**
 * One proof of the account's current factors (docs/step-up.md#reauthenticate): `password`, `sms_code`
 * from /api/v1/auth/reauthenticate/sms, or `passkey`; with two-factor on, `code` as well (not after a
 * passkey with user verification). Which was sent is decided by the service (auth/step-up/proofs.ts),
 * so all stay optional here.
 */
export const reauthenticateInput = z.object({
  password: passwordField.optional().describe("The account's password"),
  sms_code: smsCodeProofField.optional().describe("A code from /api/v1/auth/reauthenticate/sms, texted to the account's verified phone"),
  passkey: authenticationResponseField.optional().describe("A passkey's assertion to the options of /api/v1/auth/reauthenticate/passkey/options"),
  code: secondFactorProofField.optional(),
});

export const reauthenticateOutput = envelope(
  z.object({ fresh_until: z.string().describe("Until when this session may make sensitive changes (ISO 8601)").meta({ examples: ["2026-11-28T10:05:00.000Z"] }) }),
);

export const reauthenticateSmsOutput = messageOnly;
