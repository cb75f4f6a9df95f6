/**
 * Sign in with Google (docs/sign-in.md#sign-in-with-google): the redirect flow (start, callback), the
 * ID-token flow for One Tap and mobile (nonce, id-token), and linking a Google account to a signed-in
 * account (link, unlink: both need a fresh session). Merged into appRouter as `google`.
 */
import { done, ok } from "../../shared/envelope.js";
import { noInput, tenantHeaders } from "../../shared/fields.js";
import { messageOnly } from "../../shared/envelope.js";
import { authProcedure, createTRPCRouter, navigationProcedure, tenantProcedure } from "../../trpc.js";
import { loginOutput } from "../schemas.js";
import { googleClientIdOf } from "./google-client.js";
import { linkGoogle, unlinkGoogle } from "./links.js";
import { issueNonce } from "./nonces.js";
import { callbackTenantOf, finishGoogleSignIn, startGoogleSignIn, startTenantOf } from "./redirect-flow.js";
import {
  googleCallbackInput,
  googleStartInput,
  idTokenInput,
  linkGoogleInput,
  linkGoogleOutput,
  nonceOutput,
  redirectOutput,
} from "./schemas.js";
import { signInWithGoogle, verifiedIdToken } from "./sign-in.js";
import { guestToMerge } from "../guest/guest-token.js";

const tags = ["auth"];

export const googleRouter = createTRPCRouter({
  start: navigationProcedure(startTenantOf)
    .meta({
      ipLimited: true,
      redirects: {
        description: "To Google's sign-in page, with state, nonce and a PKCE S256 challenge bound to a short-lived HttpOnly cookie.",
        example:
          "https://accounts.google.com/o/oauth2/v2/auth?client_id=1234-abc.apps.googleusercontent.com&response_type=code&scope=openid+email+profile" +
          "&redirect_uri=https%3A%2F%2Fapi.shop.example%2Fapi%2Fv1%2Fauth%2Foidc%2Fgoogle%2Fcallback&state=q3Vt9xLw&nonce=Zp2Lk0Rw" +
          "&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256",
      },
      openapi: {
        method: "GET",
        path: "/api/v1/auth/oidc/google/start",
        tags,
        summary: "Sign in with Google: send the browser to Google",
        description:
          "A browser navigation (a link or a button), not a fetch: the shop by `X-Tenant-ID` or `?tenant=`. " +
          "Answers 302 to Google and sets the `google_sign_in` cookie (HttpOnly, SameSite=Lax, 10 minutes) that the callback needs. " +
          "`redirect_uri` must be one of the shop's `settings.oidc.google.redirectUris`. " +
          "`guest_token` (optional): a guest's access token, checked here before anything starts; once the callback completes the " +
          "sign-in (or otp/validate, with two-factor) the guest's addresses, payments and intents move to the account and the guest " +
          "is deleted, as with `guest_token` in the other sign-ins. A guest taken over meanwhile returns with `?error=INVALID_TOKEN`.",
        errorResponses: {
          400: "TENANT_REQUIRED",
          401: "INVALID_TOKEN (guest_token is not a live guest's access token of this shop, or its guest was taken over already)",
          404: "TENANT_NOT_FOUND, or NOT_FOUND (the shop has no Google client)",
          422: "VALIDATION_ERROR (redirect_uri not in the shop's list)",
          429: "RATE_LIMITED",
          503: "SERVICE_UNAVAILABLE (Google's discovery could not be read)",
        },
      },
    })
    .input(googleStartInput)
    .output(redirectOutput)
    .query(({ ctx, input }) => startGoogleSignIn(ctx, input)),

  callback: navigationProcedure(callbackTenantOf)
    .meta({
      redirects: {
        description:
          "To the app's redirect_uri, signed in (the refresh cookie set); with `#otp_token=…` when the account has two-factor " +
          "(finish with /api/v1/auth/otp/validate); with `?error=<CODE>` when anything failed (INVALID_TOKEN, ACCOUNT_EXISTS, …).",
        example: "https://shop.example/account",
      },
      openapi: {
        method: "GET",
        path: "/api/v1/auth/oidc/google/callback",
        tags,
        summary: "Sign in with Google: where Google sends the browser back",
        description:
          "The address to register at Google: `<public URL>/api/v1/auth/oidc/google/callback`. Needs the `google_sign_in` cookie of /start " +
          "(the shop is read from it); `state` must match it. The code is exchanged and the ID token verified (signature from Google's keys, " +
          "issuer, audience, expiry, nonce). The account is the one the Google account is linked to; never one found by email alone. " +
          "A guest named by /start's `guest_token` is taken over once the sign-in completes.",
        errorResponses: { 401: "INVALID_TOKEN (no or a bad google_sign_in cookie: nowhere to send the browser back)" },
      },
    })
    .input(googleCallbackInput)
    .output(redirectOutput)
    .query(({ ctx, input }) => finishGoogleSignIn(ctx, input)),

  nonce: tenantProcedure
    .meta({
      ipLimited: true,
      openapi: {
        method: "POST",
        path: "/api/v1/auth/oidc/google/nonce",
        tags,
        summary: "A nonce for an ID token from Google (One Tap, mobile)",
        description: "Single use, for 5 minutes: the app has Google put it in the ID token it sends to /id-token or to link.",
        requestHeaders: tenantHeaders,
        errorResponses: { 404: "NOT_FOUND (the shop has no Google client)", 429: "RATE_LIMITED" },
      },
    })
    .input(noInput)
    .output(nonceOutput)
    .mutation(async ({ ctx }) => {
      googleClientIdOf(ctx.tenant);
      return ok(await issueNonce(ctx));
    }),

  idToken: tenantProcedure
    .meta({
      ipLimited: true,
      signInStep: "google",
      openapi: {
        method: "POST",
        path: "/api/v1/auth/oidc/google/id-token",
        tags,
        summary: "Sign in with an ID token from Google (One Tap, mobile)",
        description:
          "Answers as login does: an access token and the refresh cookie, or requires_otp and an otp_token for /api/v1/auth/otp/validate. " +
          "The token must be signed by Google, for this shop's client id, unexpired, and carry a nonce from /nonce; the nonce is spent by " +
          "its first use, whether the token passes or not. A verified Google email that is another account's verified email answers 409 ACCOUNT_EXISTS.",
        requestHeaders: tenantHeaders,
        errorResponses: {
          401: "INVALID_TOKEN (any failed check of the ID token or its nonce)",
          403: "EMAIL_NOT_VERIFIED",
          404: "NOT_FOUND (the shop has no Google client)",
          409: "ACCOUNT_EXISTS",
          429: "RATE_LIMITED",
        },
      },
    })
    .input(idTokenInput)
    .output(loginOutput)
    .mutation(async ({ ctx, input }) => {
      // A guest_token that is not a live guest's answers 401 before the nonce is spent.
      const guest = await guestToMerge(ctx, input.guest_token);
      return ok(await signInWithGoogle(ctx, await verifiedIdToken(ctx, googleClientIdOf(ctx.tenant), input.id_token), guest));
    }),

  link: authProcedure
    .meta({
      stepUp: "always",
      successStatus: 201,
      openapi: {
        method: "POST",
        path: "/api/v1/auth/me/identities/google",
        tags,
        summary: "Link a Google account to this account",
        description:
          "Takes an ID token from Google carrying a nonce from /api/v1/auth/oidc/google/nonce. A new way to sign in: every other " +
          "session ends and the account's email and verified phone are told.",
        requestHeaders: tenantHeaders,
        errorResponses: {
          401: "INVALID_TOKEN (the ID token or its nonce failed a check), AUTH_REQUIRED",
          404: "NOT_FOUND (the shop has no Google client)",
          409: "IDENTITY_IN_USE (linked to another account, or another Google account is linked here)",
        },
      },
    })
    .input(linkGoogleInput)
    .output(linkGoogleOutput)
    .mutation(async ({ ctx, input }) => ok(await linkGoogle(ctx, input), "Google account linked.")),

  unlink: authProcedure
    .meta({
      stepUp: "always",
      openapi: {
        method: "DELETE",
        path: "/api/v1/auth/me/identities/google",
        tags,
        summary: "Unlink the Google account from this account",
        description: "Refused (409 LAST_SIGN_IN_METHOD) when it is the account's last way to sign in (no password, no verified phone, no passkey).",
        requestHeaders: tenantHeaders,
        errorResponses: { 401: "AUTH_REQUIRED or INVALID_TOKEN", 404: "NOT_FOUND (no Google account linked)", 409: "LAST_SIGN_IN_METHOD" },
      },
    })
    .input(noInput)
    .output(messageOnly)
    .mutation(async ({ ctx }) => {
      await unlinkGoogle(ctx);
      return done("Google account unlinked.");
    }),
});
