/**
 * Google's OpenID provider as the service uses it (docs/sign-in.md#sign-in-with-google): a port the
 * composition root builds (apps/api, on openid-client; the issuer is OIDC_GOOGLE_ISSUER, discovered at
 * first use). Every check of an ID token — its signature from the provider's JWKS, `iss`, `aud`,
 * `exp`, and in the redirect flow `nonce` — is the provider's library's; the domain decides what a
 * verified identity may do.
 */

/** A shop's OAuth client at Google (`settings.oidc.google`), its secret in clear. */
export interface GoogleClient {
  clientId: string;
  clientSecret: string;
}

/** Who Google says signed in. */
export interface GoogleIdentity {
  /** Google's stable id of the person: how a linked account is found. */
  subject: string;
  email: string | null;
  /** Whether Google has verified `email`. */
  emailVerified: boolean;
  name: string | null;
}

/** The browser's trip to the provider: where it comes back, and the values bound to its cookie. */
export interface AuthorizationRequest {
  /** The service's own callback (`<public URL>/api/v1/auth/oidc/google/callback`). */
  callbackUrl: string;
  state: string;
  nonce: string;
  /** PKCE: the provider is sent its S256 challenge. */
  codeVerifier: string;
}

/** What came back to the callback, and what it must match. */
export interface AuthorizationResponse {
  callbackUrl: string;
  /** The callback's query as received (`code`, `state`, or the provider's `error`). */
  query: Record<string, string>;
  expectedState: string;
  expectedNonce: string;
  codeVerifier: string;
}

/** An ID token's check: the identity, or why not; its `nonce` claim read either way (it is spent either way). */
export type IdTokenCheck =
  | { verified: true; identity: GoogleIdentity; nonce: string | undefined }
  | { verified: false; reason: string; nonce: string | undefined };

export interface GoogleIdentityProvider {
  /** The provider's authorization URL for this trip (the first call discovers the issuer). */
  authorizationUrl(client: GoogleClient, request: AuthorizationRequest): Promise<string>;
  /**
   * Exchanges the code for tokens and verifies the ID token. Rejects with `GoogleRefusal` for anything
   * that fails a check (state, the provider's error, the code, the token); other errors: the provider
   * could not be reached.
   */
  redeem(client: GoogleClient, response: AuthorizationResponse): Promise<GoogleIdentity>;
  /** Checks an ID token the app got from Google itself (One Tap, mobile) for this client: signature, iss, aud, exp. */
  checkIdToken(clientId: string, idToken: string): Promise<IdTokenCheck>;
}

/** A check that failed: the answer is the sign-in's refusal, never a 5xx. */
export class GoogleRefusal extends Error {
  override name = "GoogleRefusal";
}
