/**
 * Reauthenticate (docs/step-up.md#reauthenticate): the proof that makes the caller's session fresh
 * again for the sensitive operations. Part of the auth API (/api/v1/auth/…, tRPC auth.*), spread
 * into the auth router.
 */
import { done, ok } from "../../shared/envelope.js";
import { noInput, tenantHeaders } from "../../shared/fields.js";
import { authProcedure } from "../../trpc.js";
import { reauthenticationOptions } from "../passkeys/reauthentication.js";
import { requestOptionsOutput } from "../passkeys/schemas.js";
import { reauthenticate, sendReauthenticationCode } from "./reauthenticate.js";
import { reauthenticateInput, reauthenticateOutput, reauthenticateSmsOutput } from "./schemas.js";

const tags = ["auth"];

export const stepUpProcedures = {
  reauthenticate: authProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/api/v1/auth/reauthenticate",
        tags,
        summary: "Prove it is you again: this session may make sensitive changes for STEP_UP_WINDOW_SECONDS",
        description:
          "Takes `{ password }`, `{ sms_code }` from /api/v1/auth/reauthenticate/sms, or `{ passkey }` (an assertion to the options of /api/v1/auth/reauthenticate/passkey/options); " +
          "with two-factor on, `code` as well (authenticator or recovery code), except after a passkey whose authenticator verified its user. " +
          "Answers `fresh_until`: until then the operations that need a fresh session (they answer 403 STEP_UP_REQUIRED otherwise) go through on this session. " +
          "Wrong passwords and codes count toward the account's failed sign-in limit.",
        requestHeaders: tenantHeaders,
        errorResponses: {
          401: "INVALID_CREDENTIALS (wrong password, or a passkey assertion that does not check), INVALID_OTP (wrong SMS or two-factor code), AUTH_REQUIRED or INVALID_TOKEN",
          422: "VALIDATION_ERROR (not exactly one of password, sms_code and passkey; code missing while two-factor is on)",
          429: "RATE_LIMITED (too many wrong passwords or codes for the account)",
        },
      },
    })
    .input(reauthenticateInput)
    .output(reauthenticateOutput)
    .mutation(async ({ ctx, input }) => ok(await reauthenticate(ctx, input), "Confirmed: sensitive changes are allowed on this session for a few minutes.")),

  reauthenticatePasskeyOptions: authProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/api/v1/auth/reauthenticate/passkey/options",
        tags,
        summary: "The WebAuthn request options for reauthenticate's passkey",
        description: "Names the account's passkeys; the challenge is single use, for 5 minutes, and only this session may answer it.",
        requestHeaders: tenantHeaders,
        errorResponses: { 401: "AUTH_REQUIRED or INVALID_TOKEN" },
      },
    })
    .input(noInput)
    .output(requestOptionsOutput)
    .mutation(async ({ ctx }) => ok(await reauthenticationOptions(ctx))),

  reauthenticateSms: authProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/api/v1/auth/reauthenticate/sms",
        tags,
        summary: "Text a code to the account's verified phone, for reauthenticate's sms_code",
        description: "The code lasts PHONE_CODE_TTL_SECONDS and allows 5 tries; at most 3 texts per phone per 15 minutes.",
        requestHeaders: tenantHeaders,
        errorResponses: { 401: "AUTH_REQUIRED or INVALID_TOKEN", 409: "NO_VERIFIED_PHONE", 429: "RATE_LIMITED" },
      },
    })
    .input(noInput)
    .output(reauthenticateSmsOutput)
    .mutation(async ({ ctx }) => {
      await sendReauthenticationCode(ctx);
      return done("A code is on its way by SMS.");
    }),
};
