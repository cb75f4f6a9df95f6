import { createTRPCRouter, refreshCookieProcedure, tenantProcedure } from "../trpc.js";
import { done, ok } from "../shared/envelope.js";
import { noInput, tenantHeaders } from "../shared/fields.js";
import { loginInput, loginOutput, logoutOutput, refreshOutput, registerInput, registerOutput } from "./schemas.js";
import * as auth from "./service.js";
import { recoveryProcedures } from "./recovery/router.js";
import { deviceProcedures } from "./sessions/router.js";
import { stepUpProcedures } from "./step-up/router.js";
import { guestProcedures } from "./guest/router.js";

const tags = ["auth"];

export const authRouter = createTRPCRouter({
  ...recoveryProcedures,
  ...deviceProcedures,
  ...stepUpProcedures,
  ...guestProcedures,

  register: tenantProcedure
    .meta({
      ipLimited: true,
      captcha: "register",
      successStatus: 201,
      openapi: {
        method: "POST",
        path: "/api/v1/auth/register",
        tags,
        summary: "Register a customer account",
        description: "Creates the account, sends a verification email, returns an access token and sets the refresh cookie.",
        requestHeaders: tenantHeaders,
        successDescription: "Account created (HTTP 201).",
        errorResponses: {
          409: "USER_EXISTS",
          422: "VALIDATION_ERROR (also: a password seen in a data breach, on `password`)",
          400: "TENANT_REQUIRED",
          404: "TENANT_NOT_FOUND",
          429: "RATE_LIMITED",
        },
      },
    })
    .input(registerInput)
    .output(registerOutput)
    .mutation(async ({ ctx, input }) =>
      ok(await auth.register(ctx, input), "Registration successful. Please check your email to verify your account."),
    ),

  login: tenantProcedure
    .meta({
      ipLimited: true,
      signInStep: "password",
      openapi: {
        method: "POST",
        path: "/api/v1/auth/login",
        tags,
        summary: "Sign in with email and password",
        description:
          "Without two-factor: returns an access token and sets the HTTP-only refresh cookie. With two-factor: returns requires_otp and an otp_token for /api/v1/auth/otp/validate. " +
          "With `guest_token` (a guest's access token), the guest's addresses, payments and intents move to this account and the guest is deleted once the sign-in completes; a token that is not a live guest's of this shop answers 401 INVALID_TOKEN and signs nobody in.",
        requestHeaders: tenantHeaders,
        errorResponses: { 401: "INVALID_CREDENTIALS or INVALID_TOKEN (guest_token)", 403: "EMAIL_NOT_VERIFIED", 422: "VALIDATION_ERROR", 429: "RATE_LIMITED" },
      },
    })
    .input(loginInput)
    .output(loginOutput)
    .mutation(async ({ ctx, input }) => ok(await auth.login(ctx, input))),

  logout: refreshCookieProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/api/v1/auth/logout",
        tags,
        summary: "Sign out: end the session and clear the refresh cookie",
        requestHeaders: tenantHeaders,
      },
    })
    .input(noInput)
    .output(logoutOutput)
    .mutation(async ({ ctx }) => {
      await auth.logout(ctx);
      return done("Logged out successfully.");
    }),

  refresh: refreshCookieProcedure
    .meta({
      ipLimited: true,
      openapi: {
        method: "POST",
        path: "/api/v1/auth/refresh",
        tags,
        summary: "Get a new access token from the refresh cookie (the cookie is rotated)",
        requestHeaders: tenantHeaders,
        errorResponses: {
          401: "AUTH_REQUIRED (no cookie) or INVALID_TOKEN (expired, revoked or reused cookie)",
          403: "EMAIL_NOT_VERIFIED (the shop requires a verified email)",
          429: "RATE_LIMITED",
        },
      },
    })
    .input(noInput)
    .output(refreshOutput)
    .mutation(async ({ ctx }) => ok(await auth.refresh(ctx))),
});
