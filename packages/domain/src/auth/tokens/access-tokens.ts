import jwt from "jsonwebtoken";
import { DomainError } from "../../shared/errors.js";
import type { Random } from "../../shared/ports.js";
import type { AccessClaims } from "../../shared/request-context.js";
import type { KeyObject } from "node:crypto";
import type { SigningKeyRing } from "./signing-key-ring.js";
import { createVerifiedTokens, stillCurrent } from "./verified-tokens.js";

export type { AccessClaims };

export interface AccessTokens {
  sign(claims: AccessClaims): Promise<string>;
  verify(token: string): Promise<AccessClaims>;
  jwks(): Promise<{ keys: Record<string, unknown>[] }>;
}

export interface AccessTokenOptions {
  /** The ring's signing key signs; every key it still publishes verifies. */
  keys: SigningKeyRing;
  issuer: string;
  audience: string;
  ttlSeconds: number;
  now: () => Date;
  random: Random;
  /** Verified tokens kept so a repeated token skips the signature check (verified-tokens.ts); 0: none. */
  verifiedTokensKept: number;
}

/**
 * ES256 access tokens. Keys are KeyObjects parsed when loaded: jsonwebtoken re-parses PEM strings on
 * every call, which halves throughput.
 */
export function createAccessTokens(options: AccessTokenOptions): AccessTokens {
  const invalid = () => new DomainError("INVALID_TOKEN");
  const verified = createVerifiedTokens<AccessClaims>(options.verifiedTokensKept);

  return {
    async sign(claims) {
      const signingKey = await options.keys.signingKey();
      const iat = Math.floor(options.now().getTime() / 1000);
      return jwt.sign({ tid: claims.tid, sid: claims.sid, role: claims.role, iat }, signingKey.privateKey, {
        algorithm: "ES256",
        keyid: signingKey.kid,
        subject: claims.sub,
        issuer: options.issuer,
        audience: options.audience,
        expiresIn: options.ttlSeconds,
        jwtid: options.random.uuid(),
      });
    },
    async verify(token) {
      const nowSeconds = Math.floor(options.now().getTime() / 1000);
      const known = verified.get(token);
      if (known) {
        // The same answer the full check would give: still within its lifetime, and its kid still names
        // the key that verified it (a retired or replaced key fails its tokens at once).
        if (stillCurrent(known, nowSeconds) && (await options.keys.verificationKey(known.kid)) === known.key) return known.claims;
        verified.forget(token);
      }
      let lookupFailure: { error: unknown } | undefined;
      let usedKey: { kid: string; key: KeyObject } | undefined;
      // One decode: jsonwebtoken hands the header it parsed to the key look-up instead of us decoding first.
      const findKey: jwt.GetPublicKeyOrSecret = (header, callback) => {
        // The kid must name one of our keys; jku/x5u/jwk headers are never consulted.
        if (!header.kid || header.alg !== "ES256") return callback(invalid());
        const kid = header.kid;
        options.keys.verificationKey(kid).then(
          (key) => {
            if (key) usedKey = { kid, key };
            callback(key ? null : invalid(), key);
          },
          (error: unknown) => {
            lookupFailure = { error };
            callback(invalid());
          },
        );
      };
      const verifyOptions: jwt.VerifyOptions & { complete?: false } = {
        algorithms: ["ES256"],
        issuer: options.issuer,
        audience: options.audience,
        clockTimestamp: nowSeconds,
      };
      const payload = await new Promise<jwt.JwtPayload | undefined>((resolve) =>
        jwt.verify(token, findKey, verifyOptions, (error, decoded) => resolve(error ? undefined : (decoded as jwt.JwtPayload))),
      );
      // A key store that cannot answer is an outage, not a bad token.
      if (lookupFailure) throw lookupFailure.error;
      if (!payload || typeof payload.sub !== "string" || typeof payload.tid !== "string" || typeof payload.sid !== "string") {
        throw invalid();
      }
      const claims: AccessClaims = { sub: payload.sub, tid: payload.tid, sid: payload.sid, role: typeof payload.role === "string" ? payload.role : null };
      if (usedKey && typeof payload.exp === "number") {
        verified.remember(token, { claims, ...usedKey, expiresAt: payload.exp, notBefore: typeof payload.nbf === "number" ? payload.nbf : undefined });
      }
      return claims;
    },
    async jwks() {
      const keys = await options.keys.publishedKeys();
      return { keys: keys.map((k) => ({ ...k.publicJwk, kid: k.kid, alg: "ES256", use: "sig" })) };
    },
  };
}
