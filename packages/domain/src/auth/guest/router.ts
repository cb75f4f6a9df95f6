import { authProcedure, tenantProcedure } from "../../trpc.js";
import { ok } from "../../shared/envelope.js";
import { tenantHeaders } from "../../shared/fields.js";
import { guestInput, guestOutput, guestUpgradeInput, guestUpgradeOutput } from "./schemas.js";
import { startGuest } from "./start-guest.js";
import { upgradeGuest } from "./upgrade.js";

const tags = ["auth"];

/** Guest checkout (docs/sign-in.md#guest-checkout), merged into the auth router. */
export const guestProcedures = {
  guest: tenantProcedure
    .meta({
      ipLimited: true,
      captcha: "guest",
      successStatus: 201,
      openapi: {
        method: "POST",
        path: "/api/v1/auth/guest",
        tags,
        summary: "Check out as a guest: an account with no email, phone or password",
        description:
          'Answers as login does: an access token (role "guest") and the refresh cookie. A guest may refresh, sign out, read its profile, ' +
          "manage addresses, pay (STK push, payment intents included) and read its payments, and upgrade (POST /api/v1/auth/guest/upgrade, " +
          "or me/phone/start and me/phone/verify); anything else answers 403 FORBIDDEN. Signing in to an existing account with its token as " +
          "`guest_token` moves its addresses and payments there. At most 300 guests per IP per hour. Guests unused for RETENTION_GUESTS_DAYS are deleted; their payments are kept.",
        requestHeaders: tenantHeaders,
        successDescription: "Guest created and signed in (HTTP 201).",
        errorResponses: { 422: "VALIDATION_ERROR", 429: "RATE_LIMITED" },
      },
    })
    .input(guestInput)
    .output(guestOutput)
    .mutation(async ({ ctx }) => ok(await startGuest(ctx), "Signed in as a guest.")),

  guestUpgrade: authProcedure
    .meta({
      guestAllowed: true,
      openapi: {
        method: "POST",
        path: "/api/v1/auth/guest/upgrade",
        tags,
        summary: "Save a guest's details: the same account, with an email and a password",
        description:
          'Only on a guest\'s token. Keeps the user id, addresses and payments, and the session; answers a new access token with role "customer". ' +
          "The password must not be one seen in a data breach (422 on `password`). The email is mailed a confirmation link and becomes the account's " +
          "when it is followed (POST /api/v1/auth/me/email/verify); an address another account has answers 409 EMAIL_IN_USE there, not here. Needs no step-up.",
        requestHeaders: tenantHeaders,
        errorResponses: {
          401: "AUTH_REQUIRED or INVALID_TOKEN",
          403: "FORBIDDEN (the account is not a guest)",
          422: "VALIDATION_ERROR (also: a breached password, on `password`)",
          429: "RATE_LIMITED",
        },
      },
    })
    .input(guestUpgradeInput)
    .output(guestUpgradeOutput)
    .mutation(async ({ ctx, input }) => ok(await upgradeGuest(ctx, input), "Your details are saved. Confirm your email with the link we sent.")),
};
