/** Endpoint signing secrets: drawn here, kept encrypted (deps.cipher), in clear only to sign and to answer once. */
import type { DataCipher } from "../shared/data-cipher.js";
import type { Random } from "../shared/ports.js";
import { randomToken } from "../shared/secrets.js";

/** After a rotation the previous secret keeps signing (as the second v1) this long. */
export const previousSecretOverlapMs = 24 * 3600 * 1000;

export function newEndpointSecret(random: Random): string {
  return `whsec_${randomToken(random)}`;
}

export interface SealedSecrets {
  secretSealed: string;
  previousSecretSealed: string | null;
  previousSecretExpiresAt: Date | null;
}

/** The secrets a delivery is signed with now: the current one, then the previous one while it overlaps. */
export function signingSecrets(endpoint: SealedSecrets, cipher: DataCipher, now: Date): string[] {
  const secrets = [cipher.decrypt(endpoint.secretSealed)];
  if (endpoint.previousSecretSealed && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > now) {
    secrets.push(cipher.decrypt(endpoint.previousSecretSealed));
  }
  return secrets;
}
