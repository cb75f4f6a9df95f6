import { constants, createPrivateKey, createPublicKey, generateKeyPairSync, privateDecrypt } from "node:crypto";
import type { KeyObject } from "node:crypto";

export interface SimulatorKeyPair {
  privateKeyPem: string;
  /** SPKI PEM; a Daraja client encrypts the initiator password with it (MOMO_CERTIFICATE_PATH). */
  publicKeyPem: string;
}

export function generateSimulatorKeyPair(): SimulatorKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  return {
    privateKeyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    publicKeyPem: publicKey.export({ type: "spki", format: "pem" }).toString(),
  };
}

export function publicKeyPemFor(privateKeyPem: string): string {
  return createPublicKey(createPrivateKey(privateKeyPem)).export({ type: "spki", format: "pem" }).toString();
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

export function isBase64(value: string): boolean {
  return value.length % 4 === 0 && BASE64.test(value);
}

/**
 * Recovers the initiator password from a SecurityCredential (RSA PKCS#1 v1.5). Node 20 refuses
 * PKCS#1 v1.5 private decryption (CVE-2023-46809), and the timing side channel it guards against
 * is irrelevant to a local simulator, so the padding is removed by hand. Null when it does not decrypt.
 */
export function decryptSecurityCredential(privateKey: string | KeyObject, credential: string): string | null {
  try {
    const block = privateDecrypt(
      { key: privateKey, padding: constants.RSA_NO_PADDING },
      Buffer.from(credential, "base64"),
    );
    if (block[0] !== 0 || block[1] !== 2) return null;
    const separator = block.indexOf(0, 2);
    if (separator < 10) return null;
    return block.subarray(separator + 1).toString("utf8");
  } catch {
    return null;
  }
}
