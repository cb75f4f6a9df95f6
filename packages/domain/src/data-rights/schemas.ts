import { z } from "zod";
import { envelope } from "../shared/envelope.js";
import { oneLineString, passwordField } from "../shared/fields.js";
import { fullAddress } from "../addresses/schemas.js";
import { meView } from "../profile/schemas.js";
import { serverPaymentView } from "../payments/shared/schemas.js";
import { securityEventView } from "../security-events/schemas.js";
import { passkeyView } from "../auth/passkeys/schemas.js";
import { identityView } from "../auth/google/schemas.js";
import { requirePasswordOrSmsCode, smsCodeProofField } from "../auth/phone/schemas.js";

export const eraseAccountInput = z.object({
  password: passwordField.optional().describe("The current password (required when the account has one)"),
  sms_code: smsCodeProofField.optional(),
  code: oneLineString().max(64).optional().describe("A code from the authenticator app, or a recovery code: required while two-factor is on."),
}).superRefine(...requirePasswordOrSmsCode("password"));

const exportedProfile = meView.extend({ created_at: z.string(), updated_at: z.string() });

const exportedSession = z.object({
  id: z.string(),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
  ip: z.string().nullable(),
  user_agent: z.string().nullable(),
  current: z.boolean(),
  revoked_at: z.string().nullable(),
});

const exportedPayment = serverPaymentView.extend({ reference: z.string(), description: z.string() });

const exportedIdentity = identityView.extend({
  subject: z.string().describe("The provider's unchanging id of the person (Google's `sub`): the link is found by it"),
});

export const exportOutput = envelope(
  z.object({
    profile: exportedProfile,
    addresses: z.array(fullAddress),
    sessions: z.array(exportedSession).describe("Every session, ended ones included."),
    payments: z.array(exportedPayment),
    security_events: z.array(securityEventView),
    passkeys: z
      .array(passkeyView)
      .describe("The account's passkeys as GET /api/v1/auth/passkeys shows them: never their key material."),
    identities: z.array(exportedIdentity).describe("Linked outside accounts (Google)."),
  }),
);
