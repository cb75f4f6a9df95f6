import { z } from "zod";
import { envelope } from "../../shared/envelope.js";
import { oneLineString } from "../../shared/fields.js";
import { guestTokenField } from "../guest/schemas.js";

const idToken = oneLineString().min(1).max(8192).describe("An ID token from Google whose nonce came from /api/v1/auth/oidc/google/nonce");

export const googleStartInput = z.object({
  redirect_uri: oneLineString().max(2000).describe("The app's page to come back to: one of the shop's settings.oidc.google.redirectUris"),
  tenant: oneLineString().max(63).optional().describe("The shop, where the browser cannot send X-Tenant-ID"),
  guest_token: guestTokenField.optional(),
});

/** What Google sends back to the callback (other parameters are ignored). */
export const googleCallbackInput = z.object({
  code: oneLineString().max(4096).optional(),
  state: oneLineString().max(512).optional(),
  iss: oneLineString().max(2000).optional(),
  error: oneLineString().max(200).optional(),
  error_description: oneLineString().max(2000).optional(),
});

export const redirectOutput = z.object({ location: z.string().describe("Where the browser is sent (the Location header over REST)") });

export const nonceOutput = envelope(
  z.object({
    nonce: z.string().describe("Single use: put it in the ID token request to Google"),
    expires_at: z.string().meta({ examples: ["2026-11-28T10:05:00.000Z"] }),
  }),
);

export const idTokenInput = z.object({ id_token: idToken, guest_token: guestTokenField.optional() });

export const linkGoogleInput = z.object({ id_token: idToken });

export const identityView = z.object({
  provider: z.enum(["google"]),
  email: z.string().nullable(),
  linked_at: z.string().meta({ examples: ["2026-11-28T10:00:00.000Z"] }),
});

export const linkGoogleOutput = envelope(identityView);
