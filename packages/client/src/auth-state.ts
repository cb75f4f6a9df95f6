/**
 * Sign-in state as the client sees it: what an access token says about itself (subject, expiry) and
 * the event a change of token means for the application.
 */

/** SIGNED_IN: a token for a (new) user; TOKEN_REFRESHED: a new token for the same user; SIGNED_OUT: no token. */
export type AuthStateEvent = "SIGNED_IN" | "TOKEN_REFRESHED" | "SIGNED_OUT";

export interface AuthState {
  accessToken: string;
  /** The user's id (the token's `sub`). */
  userId: string | undefined;
  /** When the access token expires (its `exp`), if it says. */
  expiresAt: Date | undefined;
  /** When it was issued (its `iat`), if it says. */
  issuedAt: Date | undefined;
}

export type AuthStateListener = (event: AuthStateEvent, state: AuthState | null) => void;

interface Claims {
  sub?: unknown;
  exp?: unknown;
  iat?: unknown;
}

/** The claims of a JWT, read without verifying it (the service verifies; the client only plans ahead). */
function claimsOf(token: string): Claims {
  const payload = token.split(".")[1];
  if (!payload) return {};
  try {
    const base64 = payload.replace(/-/g, "+").replace(/_/g, "/");
    const json = decodeURIComponent(
      Array.from(atob(base64), (char) => `%${char.charCodeAt(0).toString(16).padStart(2, "0")}`).join(""),
    );
    const claims = JSON.parse(json) as unknown;
    return typeof claims === "object" && claims !== null ? (claims as Claims) : {};
  } catch {
    return {};
  }
}

export function authStateOf(token: string | null): AuthState | null {
  if (token === null) return null;
  const { sub, exp, iat } = claimsOf(token);
  return {
    accessToken: token,
    userId: typeof sub === "string" ? sub : undefined,
    expiresAt: typeof exp === "number" ? new Date(exp * 1000) : undefined,
    issuedAt: typeof iat === "number" ? new Date(iat * 1000) : undefined,
  };
}

/** What replacing the token `before` by `after` means, or undefined when nothing changed. */
export function authStateEvent(before: AuthState | null, after: AuthState | null): AuthStateEvent | undefined {
  if (before?.accessToken === after?.accessToken) return undefined;
  if (after === null) return "SIGNED_OUT";
  if (before === null || before.userId !== after.userId) return "SIGNED_IN";
  return "TOKEN_REFRESHED";
}

/**
 * Whether the token is due for a refresh at `now`: it expires within `marginSeconds`, or within a
 * quarter of its lifetime when that is shorter (a short-lived token is not refreshed on every call).
 * A token that does not say when it expires never is.
 */
export function expiresWithin(state: AuthState | null, marginSeconds: number, now: number): boolean {
  if (state?.expiresAt === undefined) return false;
  const expiresAt = state.expiresAt.getTime();
  const lifetime = state.issuedAt ? expiresAt - state.issuedAt.getTime() : Infinity;
  return expiresAt - now <= Math.min(marginSeconds * 1000, lifetime / 4);
}
