/**
 * The shape of an API key (docs/api-keys.md): `mk_` and 32 random bytes in base64url. Only its
 * SHA-256 is stored; its first characters (`prefix`) are kept in clear so people can tell keys apart.
 */
import type { Random } from "../shared/ports.js";
import { randomToken, sha256 } from "../shared/secrets.js";

const marker = "mk_";

/**
 * `mk_` and the first 9 of the 43 random characters: enough to recognise a key in a list, while the
 * 34 characters never shown still carry about 200 bits.
 */
const prefixLength = 12;

export interface NewApiKey {
  /** Shown once, in the answer that creates it. */
  key: string;
  prefix: string;
  keyHash: string;
}

export function newApiKey(random: Random): NewApiKey {
  const key = marker + randomToken(random, "base64url");
  return { key, prefix: key.slice(0, prefixLength), keyHash: hashApiKey(key) };
}

/** Whether a presented bearer credential is an API key rather than an access token (a JWT never starts so). */
export function looksLikeApiKey(credential: string): boolean {
  return credential.startsWith(marker);
}

/** Keys have 256 bits of entropy, so a fast hash is enough; it is what the lookup by key searches. */
export function hashApiKey(key: string): string {
  return sha256(key);
}
