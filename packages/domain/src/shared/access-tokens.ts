import type { KeyObject } from "node:crypto";
import jwt from "jsonwebtoken";
import { randomUUID } from "node:crypto";
import { DomainError } from "../errors.js";

export interface AccessClaims {
  sub: string;
  tid: string;
  sid: string;
  role: string | null;
}

export interface SigningKeyPair {
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  publicJwk: Record<string, unknown>;
}

export interface AccessTokens {
  sign(claims: AccessClaims): string;
  verify(token: string): AccessClaims;
  jwks(): { keys: Record<string, unknown>[] };
}

export interface AccessTokenOptions {
  /** The first key signs; all verify (older keys stay until their tokens expire). */
  keys: SigningKeyPair[];
  issuer: string;
  audience: string;
  ttlSeconds: number;
  now: () => Date;
}

/**
 * ES256 access tokens (decisions.md "Tokens and sessions"). Keys are KeyObjects parsed once at
 * start: jsonwebtoken re-parses PEM strings on every call, which halves throughput.
 */
export function createAccessTokens(options: AccessTokenOptions): AccessTokens {
  const [signingKey] = options.keys;
  if (!signingKey) throw new Error("At least one signing key is required");
  const byKid = new Map(options.keys.map((k) => [k.kid, k.publicKey]));
  const invalid = () => new DomainError("INVALID_TOKEN", "The access token is invalid or expired.");

  return {
    sign(claims) {
      const iat = Math.floor(options.now().getTime() / 1000);
      return jwt.sign({ tid: claims.tid, sid: claims.sid, role: claims.role, iat }, signingKey.privateKey, {
        algorithm: "ES256",
        keyid: signingKey.kid,
        subject: claims.sub,
        issuer: options.issuer,
        audience: options.audience,
        expiresIn: options.ttlSeconds,
        jwtid: randomUUID(),
      });
    },
    verify(token) {
      const decoded = jwt.decode(token, { complete: true });
      // The kid must name one of our keys; jku/x5u/jwk headers are never consulted.
      const kid = decoded?.header.kid;
      const key = kid ? byKid.get(kid) : undefined;
      if (!key || decoded?.header.alg !== "ES256") throw invalid();
      try {
        const payload = jwt.verify(token, key, {
          algorithms: ["ES256"],
          issuer: options.issuer,
          audience: options.audience,
          clockTimestamp: Math.floor(options.now().getTime() / 1000),
        }) as jwt.JwtPayload;
        if (typeof payload.sub !== "string" || typeof payload.tid !== "string" || typeof payload.sid !== "string") {
          throw invalid();
        }
        return { sub: payload.sub, tid: payload.tid, sid: payload.sid, role: typeof payload.role === "string" ? payload.role : null };
      } catch {
        throw invalid();
      }
    },
    jwks() {
      return { keys: options.keys.map((k) => ({ ...k.publicJwk, kid: k.kid, alg: "ES256", use: "sig" })) };
    },
  };
}
