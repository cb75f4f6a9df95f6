import { X509Certificate, constants, createPublicKey, publicEncrypt } from "node:crypto";
import type { KeyObject } from "node:crypto";

function publicKeyFrom(material: string | Buffer | KeyObject): KeyObject {
  if (typeof material !== "string" && !Buffer.isBuffer(material)) return material;
  const text = typeof material === "string" ? material : material.toString("latin1");
  if (text.includes("-----BEGIN CERTIFICATE-----")) return new X509Certificate(text).publicKey;
  if (text.includes("-----BEGIN")) return createPublicKey(text);
  // Safaricom's `.cer` downloads are sometimes binary DER rather than PEM.
  return new X509Certificate(typeof material === "string" ? Buffer.from(material, "latin1") : material).publicKey;
}

/**
 * B2C / Transaction Status SecurityCredential: RSA PKCS#1 v1.5 over the raw initiator password bytes,
 * base64. Accepts an X.509 certificate (PEM or DER, what Safaricom ships), a public key PEM (what the
 * simulator writes) or a KeyObject.
 */
export function securityCredentialFromCertificate(
  pemCertOrPublicKey: string | Buffer | KeyObject,
  initiatorPassword: string,
): string {
  return publicEncrypt(
    { key: publicKeyFrom(pemCertOrPublicKey), padding: constants.RSA_PKCS1_PADDING },
    Buffer.from(initiatorPassword, "utf8"),
  ).toString("base64");
}
