/**
 * Password reset and email verification procedures. They belong to the auth API
 * (/api/v1/auth/…, tRPC auth.*) and are spread into the auth router.
 */
import { done } from "../../shared/envelope.js";
import { noInput, tenantHeaders } from "../../shared/fields.js";
import { authProcedure, tenantProcedure } from "../../trpc.js";
import { resendVerificationMail, verifyEmail } from "./email-verification.js";
import { forgotPassword, resetPassword } from "./password-reset.js";
import { forgotPasswordInput, recoveryOutput, resetPasswordInput, verifyEmailInput } from "./schemas.js";

const tags = ["auth"];

export const forgotPasswordMessage = "If an account exists for this email, a reset link has been sent.";

const invalidLink = "INVALID_TOKEN (the token is wrong, expired, already used, or not for this email)";

export const recoveryProcedures = {
  forgotPassword: tenantProcedure
    .meta({
      ipLimited: true,
      captcha: "forgotPassword",
      openapi: {
        method: "POST",
        path: "/api/v1/auth/forgot-password",
        tags,
        summary: "Email a password reset link",
        description:
          "Always answers the same, whether or not the email belongs to an account. The link works once, for 30 minutes. At most 5 reset or verification mails per account per hour.",
        requestHeaders: tenantHeaders,
        errorResponses: { 422: "VALIDATION_ERROR", 400: "TENANT_REQUIRED", 404: "TENANT_NOT_FOUND", 429: "RATE_LIMITED" },
      },
    })
    .input(forgotPasswordInput)
    .output(recoveryOutput)
    .mutation(async ({ ctx, input }) => {
      await forgotPassword(ctx, input);
      return done(forgotPasswordMessage);
    }),

  resetPassword: tenantProcedure
    .meta({
      ipLimited: true,
      openapi: {
        method: "POST",
        path: "/api/v1/auth/reset-password",
        tags,
        summary: "Set a new password with the token of the emailed link",
        description: "Signs the account out everywhere and emails a notice of the reset.",
        requestHeaders: tenantHeaders,
        errorResponses: { 400: invalidLink, 422: "VALIDATION_ERROR", 429: "RATE_LIMITED" },
      },
    })
    .input(resetPasswordInput)
    .output(recoveryOutput)
    .mutation(async ({ ctx, input }) => {
      await resetPassword(ctx, input);
      return done("Your password has been reset. Please log in with your new password.");
    }),

  verifyEmail: tenantProcedure
    .meta({
      ipLimited: true,
      openapi: {
        method: "POST",
        path: "/api/v1/auth/verify-email",
        tags,
        summary: "Confirm the email address with the token of the emailed link",
        description: "Sets email_verified to true. The link works once, for 24 hours.",
        requestHeaders: tenantHeaders,
        errorResponses: { 400: invalidLink, 422: "VALIDATION_ERROR", 429: "RATE_LIMITED" },
      },
    })
    .input(verifyEmailInput)
    .output(recoveryOutput)
    .mutation(async ({ ctx, input }) => {
      await verifyEmail(ctx, input);
      return done("Your email address has been verified.");
    }),

  resendVerificationEmail: authProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/api/v1/auth/verify-email/resend",
        tags,
        summary: "Send a new email verification link",
        description:
          "Earlier unused links stop working. When the email is already verified, no mail is sent and the message says so. At most 5 reset or verification mails per account per hour.",
        requestHeaders: tenantHeaders,
        errorResponses: { 401: "AUTH_REQUIRED or INVALID_TOKEN", 429: "RATE_LIMITED" },
      },
    })
    .input(noInput)
    .output(recoveryOutput)
    .mutation(async ({ ctx }) => {
      const outcome = await resendVerificationMail(ctx);
      return done(
        outcome === "already_verified"
          ? "Your email address is already verified."
          : "A new verification email has been sent. Please check your inbox.",
      );
    }),
};
