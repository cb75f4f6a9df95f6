import { createCipheriv, createDecipheriv } from "node:crypto";
import { cryptoRandom, type Random } from "./ports.js";

/** AES-256-GCM for secrets at rest (TOTP secrets, stored private keys). Format: v1.iv.tag.ciphertext (base64url). */
export interface DataCipher {
  encrypt(plaintext: string): string;
  decrypt(ciphertext: string): string;
}

export function createDataCipher(key: Buffer, random: Random = cryptoRandom): DataCipher {
  if (key.length !== 32) throw new Error("DATA_ENCRYPTION_KEY must be 32 bytes");
  return {
    encrypt(plaintext) {
      const iv = random.bytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      return ["v1", iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), body.toString("base64url")].join(".");
    },
    decrypt(ciphertext) {
      const [version, iv, tag, body] = ciphertext.split(".");
      if (version !== "v1" || !iv || !tag || body === undefined) throw new Error("Unrecognised ciphertext");
      const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
    },
  };
}
