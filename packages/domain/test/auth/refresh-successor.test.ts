import { createHash, createHmac, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createRefreshSuccessor } from "../../src/auth/sessions/refresh-successor.js";

describe("refresh token successor", () => {
  const token = randomBytes(32).toString("base64url");

  it("is the same for the same token and key, so concurrent refreshes agree", () => {
    const key = randomBytes(32);
    expect(createRefreshSuccessor(key)(token)).toBe(createRefreshSuccessor(Buffer.from(key))(token));
  });

  it("is a 256-bit cookie value that differs per token and per key, and is neither the token nor its stored hash", () => {
    const successor = createRefreshSuccessor(randomBytes(32));
    const next = successor(token);
    expect(next).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(next).not.toBe(token);
    expect(next).not.toBe(createHash("sha256").update(token).digest("base64url"));
    expect(successor(randomBytes(32).toString("base64url"))).not.toBe(next);
    expect(createRefreshSuccessor(randomBytes(32))(token)).not.toBe(next);
  });

  it("is not the plain HMAC under DATA_ENCRYPTION_KEY (the key is derived for this one use)", () => {
    const key = randomBytes(32);
    expect(createRefreshSuccessor(key)(token)).not.toBe(createHmac("sha256", key).update(token).digest("base64url"));
  });

  it("refuses a key that is not 32 bytes", () => {
    expect(() => createRefreshSuccessor(randomBytes(16))).toThrow(/32 bytes/);
  });
});
