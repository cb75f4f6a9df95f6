/**
 * The redirect flow (docs/sign-in.md#the-redirect-flow): /start sends the browser to Google with
 * `state`, `nonce` and a PKCE S256 challenge, all three bound to a sealed cookie; /callback exchanges
 * the code, has the library verify the ID token, signs in and sends the browser back to the app's
 * page — with `?error=<CODE>` on any failure, `#otp_token=…` when two-factor must finish the sign-in.
 * A `guest_token` given to /start is checked there and its guest carried in the cookie to the sign-in.
 * The callback always redirects, so it reports its sign-in outcome itself (the `google` step).
 */
import type { z } from "zod";
import { DomainError, serviceUnavailable, toErrorEnvelope } from "../../shared/errors.js";
import { randomToken } from "../../shared/secrets.js";
import { noStore } from "../../shared/request.js";
import type { Context, TenantCtx } from "../ports.js";
import { googleClientOf } from "./google-client.js";
import { invalidGoogleToken } from "./google-account.js";
import { GoogleRefusal } from "./identity-provider.js";
import type { googleCallbackInput, googleStartInput } from "./schemas.js";
import { signInWithGoogle } from "./sign-in.js";
import { guestToMerge } from "../guest/guest-token.js";
import { signInOutcomeOfCode } from "../../shared/events.js";
import { clearSignInState, readSignInState, setSignInState, signInStateSeconds } from "./sign-in-state.js";

export const callbackPath = "/api/v1/auth/oidc/google/callback";

export interface Redirect {
  location: string;
}

/** The service's callback at Google: PUBLIC_URL's, else the address this request came to. */
function callbackUrlOf(ctx: Context): string {
  const base = ctx.deps.config.publicUrl ?? ctx.request.origin ?? ctx.deps.config.appUrl;
  return `${base.replace(/\/+$/, "")}${callbackPath}`;
}

/** The tenant of a start: X-Tenant-ID, else `?tenant=` (a link or a button cannot send a header). */
export function startTenantOf(ctx: Context, input: unknown): string | undefined {
  const fromQuery = typeof input === "object" && input !== null ? (input as { tenant?: unknown }).tenant : undefined;
  return ctx.request.tenantHeader?.trim() || (typeof fromQuery === "string" ? fromQuery.trim() : undefined);
}

/**
 * The tenant of a callback: the one its sealed cookie names (Google sends no header). Without the
 * cookie (another browser, expired, forged) there is no page to send the browser back to: 401.
 */
export function callbackTenantOf(ctx: Context): string {
  const state = readSignInState(ctx);
  if (!state) throw invalidGoogleToken();
  return state.tenantId;
}

export async function startGoogleSignIn(ctx: TenantCtx, input: z.infer<typeof googleStartInput>): Promise<Redirect> {
  const { deps, tenant } = ctx;
  const client = googleClientOf(deps, tenant);
  if (!client.redirectUris.includes(input.redirect_uri)) {
    throw new DomainError("VALIDATION_ERROR", undefined, { details: [{ path: "redirect_uri", message: "detail.redirect_uri_not_listed" }] });
  }
  // As every sign-in does: a guest_token that is not a live guest's answers 401 before anything starts.
  const guest = await guestToMerge(ctx, input.guest_token);
  const request = {
    callbackUrl: callbackUrlOf(ctx),
    state: randomToken(deps.random),
    nonce: randomToken(deps.random),
    codeVerifier: randomToken(deps.random),
  };
  const location = await deps.google.authorizationUrl(client, request).catch((cause: unknown) => {
    throw serviceUnavailable(cause);
  });
  const expiresAt = deps.clock.now().getTime() + signInStateSeconds * 1000;
  const carried = guest ? { guestId: guest.guestId } : {};
  setSignInState(ctx, { tenantId: tenant.id, redirectUri: input.redirect_uri, expiresAt, ...request, ...carried });
  noStore(ctx);
  return { location };
}

export async function finishGoogleSignIn(ctx: TenantCtx, input: z.infer<typeof googleCallbackInput>): Promise<Redirect> {
  const saved = readSignInState(ctx);
  // The procedure's tenant came from this cookie: without it there is no page to send the browser back to.
  if (!saved || saved.tenantId !== ctx.tenant.id) throw invalidGoogleToken();
  clearSignInState(ctx);
  noStore(ctx);
  try {
    if (input.state !== saved.state) throw invalidGoogleToken();
    const client = googleClientOf(ctx.deps, ctx.tenant);
    const query = Object.fromEntries(Object.entries(input).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
    const expected = { expectedState: saved.state, expectedNonce: saved.nonce, codeVerifier: saved.codeVerifier };
    const identity = await ctx.deps.google
      .redeem(client, { callbackUrl: saved.callbackUrl, query, ...expected })
      .catch((cause: unknown) => {
        throw cause instanceof GoogleRefusal ? invalidGoogleToken() : serviceUnavailable(cause);
      });
    const guest = saved.guestId === undefined ? undefined : { guestId: saved.guestId };
    const result = await signInWithGoogle(ctx, identity, guest);
    if (result.requires_otp) {
      ctx.deps.events.signIn({ step: "google", outcome: "requires_otp" });
      return { location: `${saved.redirectUri}#otp_token=${encodeURIComponent(result.otp_token)}` };
    }
    ctx.deps.events.signIn({ step: "google", outcome: "success" });
    return { location: saved.redirectUri };
  } catch (error) {
    if (!(error instanceof DomainError)) {
      ctx.deps.logger.error({ tenantId: ctx.tenant.id, error: error instanceof Error ? error.message : "unknown" }, "Google sign-in failed");
    }
    const code = toErrorEnvelope(error).body.error.code;
    ctx.deps.events.signIn({ step: "google", outcome: signInOutcomeOfCode(code) });
    const back = new URL(saved.redirectUri);
    back.searchParams.set("error", code);
    return { location: back.href };
  }
}
