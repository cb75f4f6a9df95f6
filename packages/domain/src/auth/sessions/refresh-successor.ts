import { createHmac, hkdfSync } from "node:crypto";

/**
 * The refresh token that replaces a presented one. It is derived from the presented token with a
 * server key instead of drawn at random, so two requests presenting the same cookie at once (two tabs)
 * are both answered with the same new cookie, and nothing but hashes has to be stored to answer the
 * second one.
 */
export type RefreshSuccessor = (presented: string) => string;

/** Domain-separated from every other use of DATA_ENCRYPTION_KEY (HKDF-SHA256, RFC 5869). */
const keyInfo = "mteja refresh-token successor v1";

export function createRefreshSuccessor(dataEncryptionKey: Buffer): RefreshSuccessor {
  if (dataEncryptionKey.length !== 32) throw new Error("DATA_ENCRYPTION_KEY must be 32 bytes");
  const key = Buffer.from(hkdfSync("sha256", dataEncryptionKey, Buffer.alloc(0), keyInfo, 32));
  return (presented) => createHmac("sha256", key).update(presented).digest("base64url");
}
