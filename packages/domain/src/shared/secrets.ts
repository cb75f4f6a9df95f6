import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** 32 random bytes; hex for emailed tokens, base64url for cookies and otp_tokens. */
export function randomToken(encoding: "hex" | "base64url" = "base64url"): string {
  return randomBytes(32).toString(encoding);
}

/** Tokens are stored only as this hash; they have 256 bits of entropy, so a fast hash is enough. */
export function sha256(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
