import { createHash, timingSafeEqual } from "node:crypto";
import type { Random } from "./ports.js";

/** 32 random bytes; hex for emailed tokens, base64url for cookies and otp_tokens. */
export function randomToken(random: Random, encoding: "hex" | "base64url" = "base64url"): string {
  return random.bytes(32).toString(encoding);
}

/** Tokens are stored only as this hash; they have 256 bits of entropy, so a fast hash is enough. */
export function sha256(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

/**
 * Whether a presented secret (an API key, a callback token) equals the expected one, in time that
 * tells an attacker nothing: both are hashed first, so timingSafeEqual compares two digests of the
 * same length and neither the content nor the length of the secret shows in the timing.
 */
export function equalsConstantTime(presented: string, expected: string): boolean {
  return secretMatcher(expected)(presented);
}

/** equalsConstantTime against one expected secret, whose digest is computed once (a callback token, checked on every callback). */
export function secretMatcher(expected: string): (presented: string) => boolean {
  const expectedDigest = digest(expected);
  return (presented) => timingSafeEqual(digest(presented), expectedDigest);
}

/** Whether the presented token of a callback URL is `secret` itself (equalsConstantTime); none matches a missing secret. */
export function callbackTokenValid(secret: string | null, presented: string | undefined): boolean {
  if (!secret || presented === undefined) return false;
  return equalsConstantTime(presented, secret);
}

function digest(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}
