/**
 * The passkey operations' shapes (docs/sign-in.md#passkeys). The options are what
 * `@simplewebauthn/server` generates, handed to the browser's `startRegistration` /
 * `startAuthentication` as they are; the responses are what those answer, checked by the same library.
 */
import { z } from "zod";
import { envelope } from "../../shared/envelope.js";
import { oneLineString, pageFields } from "../../shared/fields.js";
import { guestTokenField } from "../guest/schemas.js";

/** A base64url field of an authenticator's answer (the library decodes and checks it). */
const base64url = (what: string, max: number) =>
  oneLineString()
    .max(max)
    .regex(/^[A-Za-z0-9_-]*={0,2}$/, `${what} must be base64url`)
    .describe(`${what}, base64url`);

const credentialFields = {
  id: base64url("The credential id", 1400),
  rawId: base64url("The credential id", 1400),
  type: z.literal("public-key"),
  authenticatorAttachment: z.enum(["platform", "cross-platform"]).optional(),
  // No extension is asked for, so none is read: whatever the browser reports is dropped.
  clientExtensionResults: z
    .object({ credProps: z.object({ rk: z.boolean().optional() }).optional() })
    .default({})
    .describe("The browser's extension outputs (none is read)"),
};

/** What `startRegistration` of @simplewebauthn/browser answers (a `RegistrationResponseJSON`). */
export const registrationResponseField = z
  .object({
    ...credentialFields,
    response: z.object({
      clientDataJSON: base64url("clientDataJSON", 4096),
      attestationObject: base64url("attestationObject", 16384),
      authenticatorData: base64url("authenticatorData", 16384).optional(),
      transports: z.array(oneLineString().max(32)).max(10).optional(),
      publicKeyAlgorithm: z.number().int().optional(),
      publicKey: base64url("publicKey", 4096).optional(),
    }),
  })
  .describe("The authenticator's answer to the creation options, as @simplewebauthn/browser's startRegistration returns it");

/** What `startAuthentication` of @simplewebauthn/browser answers (an `AuthenticationResponseJSON`). */
export const authenticationResponseField = z
  .object({
    ...credentialFields,
    response: z.object({
      clientDataJSON: base64url("clientDataJSON", 4096),
      authenticatorData: base64url("authenticatorData", 4096),
      signature: base64url("signature", 2048),
      userHandle: base64url("userHandle", 128).optional(),
    }),
  })
  .describe("The authenticator's assertion, as @simplewebauthn/browser's startAuthentication returns it");

export const registerVerifyInput = z.object({
  response: registrationResponseField,
  name: oneLineString().trim().min(1).max(60).optional().describe("What the customer calls this passkey (default \"Passkey\")"),
});

export const loginVerifyInput = z.object({ response: authenticationResponseField, guest_token: guestTokenField.optional() });

export const listPasskeysInput = z.object(pageFields);

export const removePasskeyInput = z.object({ id: z.uuid("id must be a passkey id") });

const credentialDescriptor = z.object({ id: z.string(), type: z.literal("public-key"), transports: z.array(z.string()).optional() });

/** PublicKeyCredentialCreationOptionsJSON: passed as they are to `startRegistration({ optionsJSON })`. */
export const creationOptions = z
  .looseObject({
    challenge: z.string().describe("Single use, for 5 minutes, bound to this session"),
    rp: z.object({ id: z.string().optional(), name: z.string() }),
    user: z.object({ id: z.string(), name: z.string(), displayName: z.string() }),
    pubKeyCredParams: z.array(z.object({ alg: z.number().int(), type: z.literal("public-key") })).describe("ES256 (-7) and RS256 (-257)"),
    timeout: z.number().int().optional(),
    excludeCredentials: z.array(credentialDescriptor).optional().describe("The account's passkeys, not to be registered twice"),
    authenticatorSelection: z
      .object({ residentKey: z.string().optional(), requireResidentKey: z.boolean().optional(), userVerification: z.string().optional() })
      .optional(),
    attestation: z.string().optional(),
  })
  .describe("WebAuthn creation options (PublicKeyCredentialCreationOptionsJSON): a discoverable credential, user verification preferred");

/** PublicKeyCredentialRequestOptionsJSON: passed as they are to `startAuthentication({ optionsJSON })`. */
export const requestOptions = z
  .looseObject({
    challenge: z.string().describe("Single use, for 5 minutes"),
    rpId: z.string().optional(),
    timeout: z.number().int().optional(),
    allowCredentials: z.array(credentialDescriptor).optional(),
    userVerification: z.string().optional(),
  })
  .describe("WebAuthn request options (PublicKeyCredentialRequestOptionsJSON)");

export const passkeyView = z.object({
  id: z.uuid(),
  name: z.string(),
  created_at: z.string().meta({ examples: ["2026-12-12T09:30:00.000Z"] }),
  last_used_at: z.string().nullable().describe("The last sign-in or reauthentication with it"),
});

export const creationOptionsOutput = envelope(creationOptions);
export const requestOptionsOutput = envelope(requestOptions);
export const passkeyOutput = envelope(passkeyView);
export const listPasskeysOutput = envelope(z.object({ passkeys: z.array(passkeyView), next_cursor: z.string().nullable() }));
