import type { KeyObject } from "node:crypto";

/** What checking one token proved, kept so the next request with the same token need not prove it again. */
export interface VerifiedToken<Claims> {
  claims: Claims;
  /** The kid it names and the key that checked its signature: a hit must still find that same key. */
  kid: string;
  key: KeyObject;
  /** Its exp and nbf, in seconds since the epoch. */
  expiresAt: number;
  notBefore: number | undefined;
}

/**
 * Access tokens already verified by this instance, by their exact text, at most `maxEntries` of them
 * (0: none kept). A customer's app sends the same token with every request for its whole lifetime, and
 * the ES256 signature check is the largest single cost of an authenticated read (docs/performance.md):
 * gateways cache verified tokens for the same reason. Only proofs of signature and claims are kept,
 * never whether the session is live: that is read on every request.
 *
 * Insertion order, not least-recently-used: a full cache drops its oldest entry, which is also the one
 * closest to expiry, so the bookkeeping stays one Map operation per request.
 */
export function createVerifiedTokens<Claims>(maxEntries: number) {
  const entries = new Map<string, VerifiedToken<Claims>>();
  return {
    get: (token: string): VerifiedToken<Claims> | undefined => entries.get(token),
    forget: (token: string): void => void entries.delete(token),
    remember(token: string, verified: VerifiedToken<Claims>): void {
      if (maxEntries <= 0) return;
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      entries.set(token, verified);
    },
  };
}

/** Whether a remembered proof still holds at `nowSeconds`, as jsonwebtoken would decide it (no clock tolerance). */
export function stillCurrent(verified: VerifiedToken<unknown>, nowSeconds: number): boolean {
  return nowSeconds < verified.expiresAt && (verified.notBefore === undefined || verified.notBefore <= nowSeconds);
}
