/**
 * The redirect flow's state between /start and /callback: `state`, `nonce`, the PKCE verifier, the
 * tenant, where the app wants the browser back and the guest to take over (if any), sealed with the
 * data cipher in a short-lived HttpOnly cookie. SameSite=Lax, as it must come back with the browser's
 * top-level return from Google; its path is the flow's own, so no other request carries it.
 */
import type { CookieOptions } from "../../shared/request.js";
import type { Context } from "../ports.js";

export const signInStateCookie = "google_sign_in";
/** Long enough to sign in at Google (a password, a second factor there), short enough to be of no use later. */
export const signInStateSeconds = 10 * 60;

export interface SignInState {
  tenantId: string;
  state: string;
  nonce: string;
  codeVerifier: string;
  /** The app's page to return to (one of the shop's `redirectUris`). */
  redirectUri: string;
  /** The callback address given to the provider (the code exchange repeats it). */
  callbackUrl: string;
  /** Epoch milliseconds after which the state is refused, whatever the cookie's own lifetime. */
  expiresAt: number;
  /** The guest a `guest_token` named at the start (checked there), taken over once the callback signs in. */
  guestId?: string;
}

function cookieOptions(ctx: Context): CookieOptions {
  return { httpOnly: true, secure: ctx.deps.config.cookieSecure, sameSite: "lax", path: "/api/v1/auth/oidc/google" };
}

export function setSignInState(ctx: Context, state: SignInState): void {
  ctx.request.setCookie(signInStateCookie, ctx.deps.cipher.encrypt(JSON.stringify(state)), { ...cookieOptions(ctx), maxAge: signInStateSeconds });
}

export function clearSignInState(ctx: Context): void {
  ctx.request.clearCookie(signInStateCookie, cookieOptions(ctx));
}

/** The state the cookie carries, if it is one this service sealed and it has not expired. */
export function readSignInState(ctx: Context): SignInState | undefined {
  const sealed = ctx.request.getCookie(signInStateCookie);
  if (!sealed) return undefined;
  try {
    const state = JSON.parse(ctx.deps.cipher.decrypt(sealed)) as SignInState;
    return typeof state.tenantId === "string" && state.expiresAt > ctx.deps.clock.now().getTime() ? state : undefined;
  } catch {
    return undefined;
  }
}
