/**
 * Passkeys (docs/sign-in.md#passkeys): registered, listed and removed by the signed-in customer
 * (adding and removing need a fresh session), and a discoverable sign-in that answers as login.
 * Mounted as `passkeys` (tRPC passkeys.*, operation ids passkeys-…).
 */
import { authProcedure, createTRPCRouter, tenantProcedure } from "../../trpc.js";
import { nullData, ok } from "../../shared/envelope.js";
import { noInput, tenantHeaders } from "../../shared/fields.js";
import { loginOutput } from "../schemas.js";
import { listPasskeys, removePasskey } from "./manage.js";
import { registrationOptions, verifyRegistration } from "./registration.js";
import {
  creationOptionsOutput,
  listPasskeysInput,
  listPasskeysOutput,
  loginVerifyInput,
  passkeyOutput,
  registerVerifyInput,
  removePasskeyInput,
  requestOptionsOutput,
} from "./schemas.js";
import { signInOptions, verifySignIn } from "./sign-in.js";

const tags = ["auth"];

export const passkeysRouter = createTRPCRouter({
  registerOptions: authProcedure
    .meta({
      stepUp: "always",
      openapi: {
        method: "POST",
        path: "/api/v1/auth/passkeys/register/options",
        tags,
        summary: "Start registering a passkey: the WebAuthn creation options for startRegistration",
        description:
          "A discoverable credential (resident key required), user verification preferred, ES256 or RS256, attestation none; " +
          "the account's passkeys are excluded. The challenge is single use, for 5 minutes, and only this session may answer it (register/verify).",
        requestHeaders: tenantHeaders,
        errorResponses: { 401: "AUTH_REQUIRED or INVALID_TOKEN" },
      },
    })
    .input(noInput)
    .output(creationOptionsOutput)
    .mutation(async ({ ctx }) => ok(await registrationOptions(ctx))),

  registerVerify: authProcedure
    .meta({
      stepUp: "always",
      successStatus: 201,
      openapi: {
        method: "POST",
        path: "/api/v1/auth/passkeys/register/verify",
        tags,
        summary: "Finish registering a passkey with the authenticator's answer",
        description:
          "Takes what startRegistration answered to the options of register/options, checked against their challenge (spent by this call, " +
          "whatever its outcome), the shop's RP ID and origins. A new way to sign in: the account's other sessions end and its owner is told by mail and text.",
        requestHeaders: tenantHeaders,
        successDescription: "Passkey registered (HTTP 201).",
        errorResponses: {
          401: "AUTH_REQUIRED or INVALID_TOKEN",
          422: "VALIDATION_ERROR (the answer does not check: a used, expired or other session's challenge, another origin or RP ID; or the passkey is already registered)",
        },
      },
    })
    .input(registerVerifyInput)
    .output(passkeyOutput)
    .mutation(async ({ ctx, input }) => ok(await verifyRegistration(ctx, input), "Passkey added.")),

  list: authProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/api/v1/auth/passkeys",
        tags,
        summary: "The signed-in customer's passkeys, newest first",
        requestHeaders: tenantHeaders,
        errorResponses: { 401: "AUTH_REQUIRED or INVALID_TOKEN", 422: "VALIDATION_ERROR (a bad limit or cursor)" },
      },
    })
    .input(listPasskeysInput)
    .output(listPasskeysOutput)
    .query(async ({ ctx, input }) => ok(await listPasskeys(ctx, input))),

  remove: authProcedure
    .meta({
      stepUp: "always",
      openapi: {
        method: "DELETE",
        path: "/api/v1/auth/passkeys/{id}",
        tags,
        summary: "Remove one of the customer's passkeys: it no longer signs in",
        requestHeaders: tenantHeaders,
        errorResponses: {
          401: "AUTH_REQUIRED or INVALID_TOKEN",
          404: "NOT_FOUND (the customer has no passkey with this id)",
          409: "LAST_SIGN_IN_METHOD (no password, verified phone or other passkey would be left)",
          422: "VALIDATION_ERROR",
        },
      },
    })
    .input(removePasskeyInput)
    .output(nullData)
    .mutation(async ({ ctx, input }) => {
      await removePasskey(ctx, input.id);
      return ok(null, "Passkey removed.");
    }),

  loginOptions: tenantProcedure
    .meta({
      ipLimited: true,
      openapi: {
        method: "POST",
        path: "/api/v1/auth/passkeys/login/options",
        tags,
        summary: "Start signing in with a passkey: the WebAuthn request options for startAuthentication",
        description: "Discoverable credentials: the options name no account, the authenticator offers the shop's passkeys. The challenge is single use, for 5 minutes.",
        requestHeaders: tenantHeaders,
        errorResponses: { 429: "RATE_LIMITED" },
      },
    })
    .input(noInput)
    .output(requestOptionsOutput)
    .mutation(async ({ ctx }) => ok(await signInOptions(ctx))),

  loginVerify: tenantProcedure
    .meta({
      ipLimited: true,
      signInStep: "passkey",
      openapi: {
        method: "POST",
        path: "/api/v1/auth/passkeys/login/verify",
        tags,
        summary: "Sign in with a passkey's assertion",
        description:
          "Answers as login does: an access token and the refresh cookie. An assertion with user verification is two factors (no requires_otp); " +
          "without it, an account with two-factor on answers requires_otp and an otp_token for /api/v1/auth/otp/validate. " +
          "A replayed or unknown assertion, a used or expired challenge, another origin or RP ID, or a signature counter that went backwards: 401 INVALID_CREDENTIALS.",
        requestHeaders: tenantHeaders,
        errorResponses: { 401: "INVALID_CREDENTIALS", 403: "EMAIL_NOT_VERIFIED", 422: "VALIDATION_ERROR", 429: "RATE_LIMITED" },
      },
    })
    .input(loginVerifyInput)
    .output(loginOutput)
    .mutation(async ({ ctx, input }) => ok(await verifySignIn(ctx, input))),
});
