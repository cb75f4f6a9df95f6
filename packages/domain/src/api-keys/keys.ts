/**
 * The shape of an API key (docs/api-keys.md): `mk_live_` or `mk_test_` (its mode, docs/test-mode.md)
 * and 32 random bytes in base64url. A key of the first releases is `mk_` and the bytes: live. Only its
 * SHA-256 is stored; its first characters (`prefix`) are kept in clear so people can tell keys apart.
 */
import type { Random } from "../shared/ports.js";
import { randomToken, sha256 } from "../shared/secrets.js";

const marker = "mk_";
const modeMarkers = { live: "mk_live_", test: "mk_test_" } as const;

/** A key's mode: its requests move live money, or test mode's simulated money. */
export type KeyMode = keyof typeof modeMarkers;

/**
 * The mode's marker and the first 9 of the 43 random characters: enough to recognise a key in a list,
 * while the 34 characters never shown still carry about 200 bits.
 */
const shownRandomCharacters = 9;

export interface NewApiKey {
  /** Shown once, in the answer that creates it. */
  key: string;
  prefix: string;
  keyHash: string;
}

export function newApiKey(random: Random, mode: KeyMode): NewApiKey {
  const key = modeMarkers[mode] + randomToken(random, "base64url");
  return { key, prefix: key.slice(0, modeMarkers[mode].length + shownRandomCharacters), keyHash: hashApiKey(key) };
}

/** Whether a presented bearer credential is an API key rather than an access token (a JWT never starts so). */
export function looksLikeApiKey(credential: string): boolean {
  return credential.startsWith(marker);
}

/**
 * The mode a key (or its prefix) names. Only `mk_test_` is test: the hash covers the whole key, so a
 * key's mode is the one it was created with, and an `mk_…` key of the first releases is live.
 */
export function modeOfKey(keyOrPrefix: string): KeyMode {
  return keyOrPrefix.startsWith(modeMarkers.test) ? "test" : "live";
}

/** Keys have 256 bits of entropy, so a fast hash is enough; it is what the lookup by key searches. */
export function hashApiKey(key: string): string {
  return sha256(key);
}
