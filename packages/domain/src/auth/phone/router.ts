import { authProcedure, createTRPCRouter, tenantProcedure } from "../../trpc.js";
import { done, ok } from "../../shared/envelope.js";
import { tenantHeaders } from "../../shared/fields.js";
import { loginOutput } from "../schemas.js";
import {
  mePhoneStartInput,
  mePhoneStartOutput,
  mePhoneVerifyInput,
  mePhoneVerifyOutput,
  phoneStartInput,
  phoneStartOutput,
  phoneVerifyInput,
} from "./schemas.js";
import * as phone from "./service.js";
import { startsAnotherPhone, verifiesAnotherPhone } from "./phone-step-up.js";

const tags = ["auth"];

/** The same answer whatever the phone (docs/phone-sign-in.md#no-enumeration). */
const startedMessage = "If this number can sign in here, a code is on its way by SMS.";

export const phoneRouter = createTRPCRouter({
  start: tenantProcedure
    .meta({
      ipLimited: true,
      captcha: "phoneStart",
      openapi: {
        method: "POST",
        path: "/api/v1/auth/phone/start",
        tags,
        summary: "Text a sign-in code to a phone",
        description:
          "Always answers 200 with the same body: a known, an unknown and a limited phone look alike. The 6-digit code lasts 10 minutes and allows 5 tries; at most 3 texts per phone per 15 minutes. Only the shop's own state answers otherwise: its text budget spent (429) or, past the platform's texts of the hour, its share of them too large (503).",
        requestHeaders: tenantHeaders,
        errorResponses: { 422: "VALIDATION_ERROR", 429: "RATE_LIMITED (per IP, or the shop's text budget)", 503: "SMS_UNAVAILABLE" },
      },
    })
    .input(phoneStartInput)
    .output(phoneStartOutput)
    .mutation(async ({ ctx, input }) => {
      await phone.startPhoneSignIn(ctx, input);
      return done(startedMessage);
    }),

  verify: tenantProcedure
    .meta({
      ipLimited: true,
      signInStep: "sms",
      openapi: {
        method: "POST",
        path: "/api/v1/auth/phone/verify",
        tags,
        summary: "Sign in (or sign up) with the texted code",
        description:
          "Answers as login does: an access token and the refresh cookie, or requires_otp and an otp_token for /api/v1/auth/otp/validate. An unknown phone gets a new account where the shop allows phone sign-up. " +
          "With `guest_token`, the guest's addresses, payments and intents move to the account once the sign-in completes (a token that is not a live guest's of this shop: 401 INVALID_TOKEN, no sign-in).",
        requestHeaders: tenantHeaders,
        errorResponses: { 401: "INVALID_OTP (wrong, used or expired code) or INVALID_TOKEN (guest_token)", 403: "EMAIL_NOT_VERIFIED", 422: "VALIDATION_ERROR", 429: "RATE_LIMITED" },
      },
    })
    .input(phoneVerifyInput)
    .output(loginOutput)
    .mutation(async ({ ctx, input }) => ok(await phone.verifyPhoneSignIn(ctx, input))),

  meStart: authProcedure
    .meta({
      guestAllowed: true,
      stepUp: { when: startsAnotherPhone },
      openapi: {
        method: "POST",
        path: "/api/v1/auth/me/phone/start",
        tags,
        summary: "Text a code to verify a phone on this account",
        description:
          "Default phone: the account's. The code verifies the phone (me/phone/verify) or confirms a change on an account without a password (`sms_code`). " +
          "A phone other than the account's verified phone needs a fresh session.",
        requestHeaders: tenantHeaders,
        errorResponses: { 401: "AUTH_REQUIRED or INVALID_TOKEN", 422: "VALIDATION_ERROR", 429: "RATE_LIMITED (the phone's texts, or the shop's text budget)", 503: "SMS_UNAVAILABLE" },
      },
    })
    .input(mePhoneStartInput)
    .output(mePhoneStartOutput)
    .mutation(async ({ ctx, input }) => {
      await phone.startMePhone(ctx, input);
      return done("A code is on its way by SMS.");
    }),

  meVerify: authProcedure
    .meta({
      guestAllowed: true,
      stepUp: { when: verifiesAnotherPhone },
      openapi: {
        method: "POST",
        path: "/api/v1/auth/me/phone/verify",
        tags,
        summary: "Verify the phone the code was sent to",
        description:
          'On a guest session this upgrades the guest in place (same account, addresses and payments; no step-up) and answers a new access token with role "customer".',
        requestHeaders: tenantHeaders,
        errorResponses: { 401: "INVALID_OTP, AUTH_REQUIRED or INVALID_TOKEN", 409: "PHONE_IN_USE", 422: "VALIDATION_ERROR", 429: "RATE_LIMITED" },
      },
    })
    .input(mePhoneVerifyInput)
    .output(mePhoneVerifyOutput)
    .mutation(async ({ ctx, input }) => ok(await phone.verifyMePhone(ctx, input), "Phone verified.")),
});
