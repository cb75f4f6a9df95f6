/**
 * An authenticator app for the tests: RFC 6238 TOTP (SHA-1, 6 digits, 30 s) on node:crypto, written
 * independently of the service's otplib so that the two check each other.
 */
import { createHmac } from "node:crypto";

const base32Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

export function base32Decode(text: string): Buffer {
  const clean = text.replace(/=+$/, "").toUpperCase();
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const char of clean) {
    const index = base32Alphabet.indexOf(char);
    if (index < 0) throw new Error(`not base32: ${char}`);
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

export function hotp(key: Buffer, counter: number): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const digest = createHmac("sha1", key).update(message).digest();
  const offset = digest[digest.length - 1]! & 0x0f;
  const binary = digest.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 1_000_000).padStart(6, "0");
}

/** The code an authenticator shows at `at` for a base32 secret. */
export function totpAt(secret: string, at: Date | number): string {
  const ms = typeof at === "number" ? at : at.getTime();
  return hotp(base32Decode(secret), Math.floor(ms / 1000 / 30));
}

/** A 6-digit code that is right for none of the steps around `at` (the window the service accepts and more). */
export function wrongCodeAt(secret: string, at: Date | number): string {
  const ms = typeof at === "number" ? at : at.getTime();
  const near = new Set([-2, -1, 0, 1, 2].map((k) => totpAt(secret, ms + k * 30_000)));
  for (let n = 0; ; n++) {
    const candidate = String((123456 + n * 7919) % 1_000_000).padStart(6, "0");
    if (!near.has(candidate)) return candidate;
  }
}
