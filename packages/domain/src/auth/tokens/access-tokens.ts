import jwt from "jsonwebtoken";
import { DomainError } from "../../errors.js";
import type { Random } from "../../core/ports.js";
import type { SigningKeyRing } from "./signing-key-ring.js";

export interface AccessClaims {
  sub: string;
  tid: string;
  sid: string;
  role: string | null;
}

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
}

/**
 * ES256 access tokens. Keys are KeyObjects parsed when loaded: jsonwebtoken re-parses PEM strings on
 * every call, which halves throughput.
 */
export function createAccessTokens(options: AccessTokenOptions): AccessTokens {
  const invalid = () => new DomainError("INVALID_TOKEN");

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
      let lookupFailure: { error: unknown } | undefined;
      // One decode: jsonwebtoken hands the header it parsed to the key look-up instead of us decoding first.
      const findKey: jwt.GetPublicKeyOrSecret = (header, callback) => {
        // The kid must name one of our keys; jku/x5u/jwk headers are never consulted.
        if (!header.kid || header.alg !== "ES256") return callback(invalid());
        options.keys.verificationKey(header.kid).then(
          (key) => callback(key ? null : invalid(), key),
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
        clockTimestamp: Math.floor(options.now().getTime() / 1000),
      };
      const payload = await new Promise<jwt.JwtPayload | undefined>((resolve) =>
        jwt.verify(token, findKey, verifyOptions, (error, decoded) => resolve(error ? undefined : (decoded as jwt.JwtPayload))),
      );
      // A key store that cannot answer is an outage, not a bad token.
      if (lookupFailure) throw lookupFailure.error;
      if (!payload || typeof payload.sub !== "string" || typeof payload.tid !== "string" || typeof payload.sid !== "string") {
        throw invalid();
      }
      return { sub: payload.sub, tid: payload.tid, sid: payload.sid, role: typeof payload.role === "string" ? payload.role : null };
    },
    async jwks() {
      const keys = await options.keys.publishedKeys();
      return { keys: keys.map((k) => ({ ...k.publicJwk, kid: k.kid, alg: "ES256", use: "sig" })) };
    },
  };
}
