import type { KeyObject } from "node:crypto";
import type { KeySet, SigningKeyPair, VerificationKey } from "./signing-keys.js";

/**
 * One instance's view of the signing keys, re-read from their source now and then so that a rotation
 * made elsewhere (another instance, an operator's command) reaches every instance without a restart.
 */
export interface SigningKeyRing {
  signingKey(): Promise<SigningKeyPair>;
  /** The public key named by a token's kid, if that key may still have valid tokens. */
  verificationKey(kid: string): Promise<KeyObject | undefined>;
  /** Every key whose tokens may still be valid, the signing one first (the JWKS). */
  publishedKeys(): Promise<VerificationKey[]>;
}

export interface SigningKeyRingOptions {
  load: () => Promise<KeySet>;
  now: () => Date;
  /** Keys are re-read once they are older than this. */
  maxAgeSeconds: number;
  /**
   * A kid the ring does not know (a key another instance has just rotated to) re-reads the keys at
   * once, but not more often than this: made-up kids must not turn into a query per request.
   */
  unknownKidReloadSeconds: number;
  /** A failed re-read keeps the keys already loaded; it is reported here and tried again later. */
  onReloadError: (error: unknown) => void;
}

export async function createSigningKeyRing(options: SigningKeyRingOptions): Promise<SigningKeyRing> {
  let keys = await options.load();
  let loadedAt = options.now().getTime();
  let lastUnknownKidReload = Number.NEGATIVE_INFINITY;
  let reloading: Promise<void> | undefined;

  const reload = (): Promise<void> =>
    (reloading ??= options
      .load()
      .then((next) => {
        keys = next;
      })
      .catch(options.onReloadError)
      .finally(() => {
        // Also after a failure: the next attempt waits a full interval instead of every request retrying.
        loadedAt = options.now().getTime();
        reloading = undefined;
      }));

  const fresh = async (): Promise<KeySet> => {
    if (options.now().getTime() - loadedAt >= options.maxAgeSeconds * 1000) await reload();
    return keys;
  };
  const stillValid = (key: VerificationKey) => key.notAfter === null || key.notAfter > options.now();
  const find = (set: KeySet, kid: string) => set.verification.find((key) => key.kid === kid && stillValid(key));

  return {
    async signingKey() {
      return (await fresh()).signing;
    },
    async verificationKey(kid) {
      let key = find(await fresh(), kid);
      const now = options.now().getTime();
      if (!key && now - lastUnknownKidReload >= options.unknownKidReloadSeconds * 1000) {
        lastUnknownKidReload = now;
        await reload();
        key = find(keys, kid);
      }
      return key?.publicKey;
    },
    async publishedKeys() {
      return (await fresh()).verification.filter(stillValid);
    },
  };
}
