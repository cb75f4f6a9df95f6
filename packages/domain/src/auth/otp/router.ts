import { noStore } from "../../shared/request.js";
import { done, ok } from "../../shared/envelope.js";
import { noInput, tenantHeaders } from "../../shared/fields.js";
import { authProcedure, createTRPCRouter, tenantProcedure } from "../../trpc.js";
import {
  otpDisableInput,
  otpDisableOutput,
  otpSetupOutput,
  otpValidateInput,
  otpValidateOutput,
  otpVerifyInput,
  otpVerifyOutput,
} from "./schemas.js";
import * as otp from "./service.js";

const tags = ["two-factor"];

/** Every otp/* answer may carry a secret, a recovery code or a token: never cached, errors included. */
const otpAuthProcedure = authProcedure.use(({ ctx, next }) => {
  noStore(ctx);
  return next();
});
const otpTenantProcedure = tenantProcedure.use(({ ctx, next }) => {
  noStore(ctx);
  return next();
});

export const otpRouter = createTRPCRouter({
  setup: otpAuthProcedure
    .meta({
      stepUp: "always",
      openapi: {
        method: "POST",
        path: "/api/v1/auth/otp/setup",
        tags,
        summary: "Start two-factor setup: a new TOTP secret and its otpauth:// URI",
        description:
          "Returns a base32 secret, the otpauth:// URI for authenticator apps and the same URI as a PNG QR code (data URL). " +
          "While two-factor is not yet enabled, calling it again replaces the pending secret. " +
          "An account may turn two-factor on at most 3 times an hour: past it, 429 (setup is refused when its verify would be).",
        requestHeaders: tenantHeaders,
        errorResponses: { 401: "AUTH_REQUIRED or INVALID_TOKEN", 409: "OTP_ALREADY_ENABLED", 429: "RATE_LIMITED" },
      },
    })
    .input(noInput)
    .output(otpSetupOutput)
    .mutation(async ({ ctx }) => ok(await otp.setup(ctx), "Scan the QR code with your authenticator app, then confirm with a code.")),

  verify: otpAuthProcedure
    .meta({
      stepUp: "always",
      openapi: {
        method: "POST",
        path: "/api/v1/auth/otp/verify",
        tags,
        summary: "Confirm setup with a code and enable two-factor",
        description:
          "On success two-factor is enabled and 10 single-use recovery codes are returned, this once only. " +
          "At most 3 times per account per hour (429 RATE_LIMITED with Retry-After; the pending secret stays).",
        requestHeaders: tenantHeaders,
        errorResponses: {
          401: "INVALID_OTP (wrong code), AUTH_REQUIRED or INVALID_TOKEN",
          409: "OTP_NOT_SETUP (no setup yet) or OTP_ALREADY_ENABLED",
          422: "VALIDATION_ERROR",
          429: "RATE_LIMITED",
        },
      },
    })
    .input(otpVerifyInput)
    .output(otpVerifyOutput)
    .mutation(async ({ ctx, input }) =>
      ok(await otp.verify(ctx, input), "Two-factor authentication is now enabled. Keep your recovery codes somewhere safe."),
    ),

  validate: otpTenantProcedure
    .meta({
      ipLimited: true,
      signInStep: "otp",
      openapi: {
        method: "POST",
        path: "/api/v1/auth/otp/validate",
        tags,
        summary: "Second step of a two-factor login",
        description:
          "Exchanges the otp_token from login and a 6-digit TOTP code (or a recovery code) for an access token; sets the refresh cookie. " +
          "The otp_token lasts 5 minutes and is spent by success or by the fifth wrong code. " +
          "A login that carried `guest_token` takes over that guest here, when the sign-in completes (its guest merged since: 401 INVALID_TOKEN).",
        requestHeaders: tenantHeaders,
        errorResponses: {
          401: "INVALID_OTP (wrong code) or INVALID_TOKEN (expired, spent or unknown otp_token)",
          422: "VALIDATION_ERROR",
          429: "RATE_LIMITED",
        },
      },
    })
    .input(otpValidateInput)
    .output(otpValidateOutput)
    .mutation(async ({ ctx, input }) => ok(await otp.validate(ctx, input))),

  disable: otpAuthProcedure
    .meta({
      stepUp: { orBodyProof: "password" },
      openapi: {
        method: "DELETE",
        path: "/api/v1/auth/otp/disable",
        tags,
        summary: "Disable two-factor (current password required)",
        description:
          "Takes `{ password }` (or `{ sms_code }` for an account without a password) as a JSON body, and `code` from the authenticator (or a recovery code) on a session that is not fresh. Deletes the secret and the recovery codes.",
        requestHeaders: tenantHeaders,
        errorResponses: {
          401: "INVALID_CREDENTIALS (wrong password), AUTH_REQUIRED or INVALID_TOKEN",
          409: "OTP_NOT_SETUP (two-factor is not enabled)",
          422: "VALIDATION_ERROR",
          429: "RATE_LIMITED",
        },
      },
    })
    .input(otpDisableInput)
    .output(otpDisableOutput)
    .mutation(async ({ ctx, input }) => {
      await otp.disable(ctx, input);
      return done("Two-factor authentication has been disabled.");
    }),
});
