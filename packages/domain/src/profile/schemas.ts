import { LOCALES } from "@mteja/i18n";
import { z } from "zod";
import { envelope, messageOnly } from "../shared/envelope.js";
import { requirePasswordOrSmsCode, smsCodeProofField } from "../auth/phone/schemas.js";
import { secondFactorProofField } from "../auth/otp/schemas.js";
import { identityView } from "../auth/google/schemas.js";
import { kenyanPhoneField, newPasswordField, oneLineString, passwordField, personNameField } from "../shared/fields.js";

/** The customer as GET /me shows them (the data export adds its dates). */
export const meView = z.object({
  id: z.uuid(),
  name: z.string().nullable(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  phone_verified: z.boolean(),
  avatar_url: z.string().nullable(),
  email_verified: z.boolean(),
  otp_enabled: z.boolean(),
  role: z.string().nullable(),
  preferences: z.record(z.string(), z.unknown()),
});

/** GET /me adds the outside accounts linked to this one (Sign in with Google, docs/sign-in.md#linking). */
export const meOutput = envelope(meView.extend({ identities: z.array(identityView) }));

export const updateMeInput = z.object({
  name: personNameField.optional(),
  phone: kenyanPhoneField.nullable().optional(),
  avatar_url: oneLineString()
    .trim()
    .max(2048, "avatar_url must be at most 2048 characters")
    .pipe(z.url({ protocol: /^https?$/, error: "avatar_url must be an http(s) URL" }))
    .meta({ format: "uri", pattern: "^[Hh][Tt][Tt][Pp][Ss]?://" })
    .nullable()
    .optional(),
  /** Merged into the stored preferences; `locale: null` forgets the choice (docs/i18n.md#which-language). */
  preferences: z
    .object({ locale: z.enum(LOCALES).nullable().optional().describe("The language of answers, mails and texts: en or sw") })
    .strict()
    .optional(),
});

export const updateMeOutput = envelope(
  z.object({ id: z.uuid(), name: z.string().nullable(), email: z.string().nullable(), phone: z.string().nullable(), avatar_url: z.string().nullable() }),
);

export const changePasswordInput = z.object({
  current_password: passwordField.optional().describe("The current password (required when the account has one)"),
  sms_code: smsCodeProofField.optional(),
  code: secondFactorProofField.optional(),
  new_password: newPasswordField,
}).superRefine(...requirePasswordOrSmsCode("current_password"));

export const changePasswordOutput = messageOnly;
