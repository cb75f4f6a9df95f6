/**
 * The domain's GoogleIdentityProvider port on `openid-client` (the redirect flow: discovery, the
 * authorization URL with PKCE S256, the code exchange and the ID token's checks, its signature
 * included) and `jose` (an ID token the app got from Google itself: signature from the issuer's JWKS,
 * iss, aud, exp). The issuer (OIDC_GOOGLE_ISSUER) is discovered at first use, not at start, and again
 * after a failed discovery; its keys are cached by the libraries.
 */
import {
  GoogleRefusal,
  type GoogleClient,
  type GoogleIdentity,
  type GoogleIdentityProvider,
  type IdTokenCheck,
} from "@mteja/domain";
import { createRemoteJWKSet, decodeJwt, jwtVerify, type JWTPayload } from "jose";
import * as oidc from "openid-client";

export interface GoogleProviderOptions {
  issuer: string;
  now: () => Date;
  /** Each request to the provider (discovery, keys, token) gives up after this long. */
  timeoutMs?: number;
}

/** Google's ID tokens name their issuer with or without the scheme. */
const googleIssuer = "https://accounts.google.com";

export function createGoogleProvider(options: GoogleProviderOptions): GoogleIdentityProvider {
  const issuerUrl = new URL(options.issuer);
  const insecure = issuerUrl.protocol === "http:";
  const timeout = Math.ceil((options.timeoutMs ?? 5000) / 1000);
  let discovered: Promise<oidc.ServerMetadata> | undefined;
  const configurations = new Map<string, oidc.Configuration>();
  let jwks: { uri: string; keys: ReturnType<typeof createRemoteJWKSet> } | undefined;

  function metadata(): Promise<oidc.ServerMetadata> {
    const execute = insecure ? { execute: [oidc.allowInsecureRequests] } : {};
    discovered ??= oidc
      .discovery(issuerUrl, "discovery", undefined, undefined, { timeout, ...execute })
      .then((configuration) => configuration.serverMetadata())
      .catch((error: unknown) => {
        discovered = undefined;
        throw error;
      });
    return discovered;
  }

  async function configurationOf(client: GoogleClient): Promise<oidc.Configuration> {
    const key = `${client.clientId}\n${client.clientSecret}`;
    const known = configurations.get(key);
    if (known) return known;
    const authentication = oidc.ClientSecretPost(client.clientSecret);
    const configuration = new oidc.Configuration(await metadata(), client.clientId, client.clientSecret, authentication);
    configuration.timeout = timeout;
    if (insecure) oidc.allowInsecureRequests(configuration);
    // The ID token from the token endpoint has its signature checked too, not only its claims.
    oidc.enableNonRepudiationChecks(configuration);
    configurations.set(key, configuration);
    return configuration;
  }

  function keysOf(meta: oidc.ServerMetadata) {
    if (!meta.jwks_uri) throw new Error("the issuer publishes no jwks_uri");
    if (jwks?.uri !== meta.jwks_uri) {
      jwks = { uri: meta.jwks_uri, keys: createRemoteJWKSet(new URL(meta.jwks_uri), { timeoutDuration: timeout * 1000 }) };
    }
    return jwks.keys;
  }

  return {
    async authorizationUrl(client, request) {
      const configuration = await configurationOf(client);
      const url = oidc.buildAuthorizationUrl(configuration, {
        redirect_uri: request.callbackUrl,
        scope: "openid email profile",
        state: request.state,
        nonce: request.nonce,
        code_challenge: await oidc.calculatePKCECodeChallenge(request.codeVerifier),
        code_challenge_method: "S256",
      });
      return url.href;
    },

    async redeem(client, response) {
      const configuration = await configurationOf(client);
      const current = new URL(response.callbackUrl);
      for (const [name, value] of Object.entries(response.query)) current.searchParams.set(name, value);
      try {
        const tokens = await oidc.authorizationCodeGrant(configuration, current, {
          pkceCodeVerifier: response.codeVerifier,
          expectedState: response.expectedState,
          expectedNonce: response.expectedNonce,
          idTokenExpected: true,
        });
        const claims = tokens.claims();
        if (!claims) throw new GoogleRefusal("no ID token");
        return identityOf(claims);
      } catch (error) {
        throw unreachable(error) ? error : new GoogleRefusal(error instanceof Error ? `${error.name}: ${error.message}` : "refused");
      }
    },

    async checkIdToken(clientId, idToken): Promise<IdTokenCheck> {
      let nonce: string | undefined;
      try {
        const claims = decodeJwt(idToken);
        nonce = typeof claims.nonce === "string" ? claims.nonce : undefined;
      } catch {
        return { verified: false, reason: "not a JWT", nonce: undefined };
      }
      const meta = await metadata();
      const issuers = meta.issuer === googleIssuer ? [googleIssuer, "accounts.google.com"] : [meta.issuer];
      try {
        const { payload } = await jwtVerify(idToken, keysOf(meta), {
          issuer: issuers,
          audience: clientId,
          algorithms: ["RS256", "ES256"],
          requiredClaims: ["sub", "exp", "iat"],
          currentDate: options.now(),
        });
        return { verified: true, identity: identityOf(payload), nonce };
      } catch (error) {
        if (unreachable(error)) throw error;
        return { verified: false, reason: error instanceof Error ? ((error as { code?: string }).code ?? error.name) : "refused", nonce };
      }
    },
  };
}

function identityOf(claims: JWTPayload | oidc.IDToken): GoogleIdentity {
  if (typeof claims.sub !== "string" || claims.sub === "") throw new GoogleRefusal("no sub");
  const email = typeof claims.email === "string" ? claims.email : null;
  // Google sends a boolean; some of its older tokens a string.
  const verified = claims.email_verified === true || claims.email_verified === "true";
  return { subject: claims.sub, email, emailVerified: email !== null && verified, name: typeof claims.name === "string" ? claims.name : null };
}

/** The provider did not answer (network, time-out): not a refusal of the token. */
function unreachable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === "AbortError" || error.name === "TimeoutError" || (error as { code?: string }).code === "ERR_JWKS_TIMEOUT") return true;
  return error instanceof TypeError && /fetch failed/i.test(error.message);
}
