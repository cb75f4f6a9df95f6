import { constants, createPrivateKey, generateKeyPairSync, privateDecrypt } from "node:crypto";
import type { KeyObject } from "node:crypto";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { securityCredentialFromCertificate } from "../src/index.js";

// Node 20 refuses PKCS#1 v1.5 private decryption (CVE-2023-46809), so undo the padding by hand:
// 0x00 0x02 <random non-zero bytes> 0x00 <message>.
function decryptPkcs1(privateKey: KeyObject | string, credential: string): string {
  const block = privateDecrypt({ key: privateKey, padding: constants.RSA_NO_PADDING }, Buffer.from(credential, "base64"));
  expect(block[0]).toBe(0);
  expect(block[1]).toBe(2);
  const separator = block.indexOf(0, 2);
  expect(separator).toBeGreaterThanOrEqual(10);
  return block.subarray(separator + 1).toString("utf8");
}

/** A throwaway self-signed certificate made with openssl, like Safaricom's .cer files (no key is committed). */
function makeCertificate(): { keyPem: Buffer; certPem: Buffer; certDer: Buffer } {
  const dir = mkdtempSync(path.join(tmpdir(), "mteja-cert-"));
  const file = (name: string) => path.join(dir, name);
  execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", file("key.pem"), "-out", file("cert.pem"), "-days", "1", "-subj", "/CN=mteja-test"], { stdio: "ignore" });
  execFileSync("openssl", ["x509", "-in", file("cert.pem"), "-outform", "DER", "-out", file("cert.der")], { stdio: "ignore" });
  return { keyPem: readFileSync(file("key.pem")), certPem: readFileSync(file("cert.pem")), certDer: readFileSync(file("cert.der")) };
}

describe("securityCredentialFromCertificate", () => {
  const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });

  it("encrypts the raw password bytes with PKCS#1 v1.5 (public key PEM)", () => {
    const pem = publicKey.export({ type: "spki", format: "pem" }).toString();
    const credential = securityCredentialFromCertificate(pem, "Safaricom999!*!");
    expect(Buffer.from(credential, "base64")).toHaveLength(256);
    expect(decryptPkcs1(privateKey, credential)).toBe("Safaricom999!*!");
  });

  it("is randomised, so two credentials for one password differ", () => {
    expect(securityCredentialFromCertificate(publicKey, "pw")).not.toBe(securityCredentialFromCertificate(publicKey, "pw"));
  });

  it("accepts an X.509 certificate in PEM and in DER, like Safaricom's .cer files", () => {
    const { keyPem, certPem, certDer } = makeCertificate();
    const privateKey = createPrivateKey(keyPem);
    expect(decryptPkcs1(privateKey, securityCredentialFromCertificate(certPem.toString(), "p@ss#1"))).toBe("p@ss#1");
    expect(decryptPkcs1(privateKey, securityCredentialFromCertificate(certDer, "p@ss#1"))).toBe("p@ss#1");
  });
});
