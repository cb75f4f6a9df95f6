import { requirePasswordOrSmsCode, smsCodeProofField } from "../phone/schemas.js";
import { z } from "zod";
import { loginUser } from "../schemas.js";
import { envelope, messageOnly } from "../../shared/envelope.js";
import { oneLineString, passwordField } from "../../shared/fields.js";
import { looksLikeRecoveryCode } from "./recovery-codes.js";

/** Authenticator apps show "123 456"; the space is not part of the code. */
const withoutSpaces = (value: string) => value.replace(/\s+/g, "");

export const totpCodeField = oneLineString({ error: "code is required" })
  .trim()
  .max(20, "code must be a 6-digit code")
  .transform(withoutSpaces)
  .pipe(z.string().regex(/^\d{6}$/, "code must be a 6-digit code"));

/** otp/validate takes a 6-digit code or, in its place, a recovery code. */
export const loginCodeField = oneLineString({ error: "code is required" })
  .trim()
  .max(40, "code must be a 6-digit code or a recovery code")
  .refine((value) => /^\d{6}$/.test(withoutSpaces(value)) || looksLikeRecoveryCode(value), "code must be a 6-digit code or a recovery code");

export const otpSetupOutput = envelope(
  z.object({
    secret: z.string().describe("Base32 TOTP secret (32 characters) for an authenticator app."),
    qr_code_url: z.string().describe("otpauth://totp/<issuer>:<email>?secret=<secret>&issuer=<issuer>"),
    qr_code_data_url: z.string().describe("The same URI as a QR code: a PNG data URL (data:image/png;base64,…)."),
  }),
);

export const otpVerifyInput = z.object({ code: totpCodeField });

export const otpVerifyOutput = envelope(
  z.object({
    recovery_codes: z.array(z.string()).describe("10 single-use recovery codes, shown only this once."),
  }),
);

export const otpValidateInput = z.object({
  otp_token: oneLineString({ error: "otp_token is required" }).trim().min(1, "otp_token is required").max(200, "otp_token is not valid"),
  code: loginCodeField,
});

export const otpValidateOutput = envelope(z.object({ access_token: z.string(), user: loginUser }));

/**
 * The two-factor code that completes a body proof (docs/step-up.md): on a session that is not fresh,
 * an operation confirmed by the password (or sms_code) also needs it while two-factor is on.
 */
export const secondFactorProofField = oneLineString()
  .max(64, "code must be a 6-digit code or a recovery code")
  .describe("While two-factor is on: a code from the authenticator app or a recovery code. Needed with the password (or sms_code) on a session that is not fresh (docs/step-up.md)");

export const otpDisableInput = z.object({
  password: passwordField.optional().describe("The current password (required when the account has one)"),
  sms_code: smsCodeProofField.optional(),
  code: secondFactorProofField.optional(),
}).superRefine(...requirePasswordOrSmsCode("password"));

export const otpDisableOutput = messageOnly;
