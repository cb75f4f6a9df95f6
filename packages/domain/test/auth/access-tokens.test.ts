import { generateKeyPairSync, type KeyObject } from "node:crypto";
import jwt from "jsonwebtoken";
import { describe, expect, it, vi } from "vitest";
import { createAccessTokens } from "../../src/auth/tokens/access-tokens.js";
import type { SigningKeyRing } from "../../src/auth/tokens/signing-key-ring.js";
import { DomainError } from "../../src/shared/errors.js";
import { fakeClock, sequenceRandom } from "../support/fake-ports.js";

const claims = { sub: "user-1", tid: "shop", sid: "session-1", role: null };

/** One signing key "k1" and a ring that counts its look-ups; "broken" makes the look-up itself fail. */
function setup({ verifiedTokensKept = 100 } = {}) {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const clock = fakeClock();
  const lookups: string[] = [];
  /** What the ring answers for "k1" (a test may retire or replace it) and whether look-ups fail. */
  const ring: { k1: KeyObject | undefined; down: boolean } = { k1: publicKey, down: false };
  const keys: SigningKeyRing = {
    signingKey: async () => ({ kid: "k1", privateKey, publicKey, publicJwk: {} }),
    verificationKey: async (kid) => {
      lookups.push(kid);
      if (kid === "broken" || ring.down) throw new Error("key store unreachable");
      return kid === "k1" ? ring.k1 : undefined;
    },
    publishedKeys: async () => [],
  };
  const tokens = createAccessTokens({ keys, issuer: "mteja", audience: "mteja", ttlSeconds: 900, now: clock.now, random: sequenceRandom(), verifiedTokensKept });
  /** A token like the service's, with `payload` and `options` changed (an undefined option is left out). */
  const sign = (payload: object, options: jwt.SignOptions, key: KeyObject | string = privateKey) => {
    const merged = { algorithm: "ES256", keyid: "k1", subject: "user-1", issuer: "mteja", audience: "mteja", expiresIn: 900, ...options };
    const given = Object.fromEntries(Object.entries(merged).filter(([, value]) => value !== undefined)) as jwt.SignOptions;
    return jwt.sign({ tid: "shop", sid: "session-1", role: null, iat: Math.floor(clock.now().getTime() / 1000), ...payload }, key, given);
  };
  return { tokens, clock, lookups, sign, ring };
}

async function invalid(promise: Promise<unknown>): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DomainError);
  expect((error as DomainError).code).toBe("INVALID_TOKEN");
}

describe("access tokens", () => {
  it("verifies what it signed, with the key its kid names, and answers the claims", async () => {
    const { tokens, lookups } = setup();
    const token = await tokens.sign({ ...claims, role: "admin" });
    expect(jwt.decode(token, { complete: true })?.header).toMatchObject({ alg: "ES256", kid: "k1" });
    expect(await tokens.verify(token)).toEqual({ ...claims, role: "admin" });
    expect(lookups).toEqual(["k1"]);
  });

  it("answers a missing or non-string role as null", async () => {
    const { tokens, sign } = setup();
    expect(await tokens.verify(sign({ role: 7 }, {}))).toEqual(claims);
    expect(await tokens.verify(sign({ role: undefined }, {}))).toEqual(claims);
  });

  it("refuses an expired token, and one not yet valid", async () => {
    const { tokens, clock, sign } = setup();
    const token = await tokens.sign(claims);
    clock.advance(899_000);
    await expect(tokens.verify(token)).resolves.toEqual(claims);
    clock.advance(1_000);
    await invalid(tokens.verify(token));
    await invalid(tokens.verify(sign({}, { notBefore: 60 })));
  });

  it("refuses another issuer or audience", async () => {
    const { tokens, sign } = setup();
    await invalid(tokens.verify(sign({}, { issuer: "someone-else" })));
    await invalid(tokens.verify(sign({}, { audience: "someone-else" })));
  });

  it("refuses a token without the subject, tenant or session claim", async () => {
    const { tokens, sign } = setup();
    await invalid(tokens.verify(sign({ tid: undefined }, {})));
    await invalid(tokens.verify(sign({ sid: 5 }, {})));
    await invalid(tokens.verify(sign({}, { subject: undefined })));
  });

  it("consults the key ring only for an ES256 token with a kid, and refuses unknown kids", async () => {
    const { tokens, lookups, sign } = setup();
    await invalid(tokens.verify(sign({}, { keyid: undefined })));
    await invalid(tokens.verify(sign({}, { algorithm: "HS256" }, "a-shared-secret")));
    const [, payload] = (await tokens.sign(claims)).split(".");
    const none = `${Buffer.from(JSON.stringify({ alg: "none", kid: "k1", typ: "JWT" })).toString("base64url")}.${payload}.`;
    await invalid(tokens.verify(none));
    expect(lookups).toEqual([]);
    await invalid(tokens.verify(sign({}, { keyid: "k2" })));
    expect(lookups).toEqual(["k2"]);
  });

  it("refuses a tampered payload, a foreign signature and garbage", async () => {
    const { tokens, sign } = setup();
    const token = await tokens.sign(claims);
    const [header, payload, signature] = token.split(".");
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, "base64url").toString()), role: "admin" })).toString("base64url");
    await invalid(tokens.verify(`${header}.${forged}.${signature}`));
    const stranger = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey;
    await invalid(tokens.verify(sign({}, {}, stranger)));
    for (const garbage of ["", "not.a.jwt", "a.b", `${header}.${payload}`, `${header}.${payload}.${signature}.x`]) {
      await invalid(tokens.verify(garbage));
    }
  });

  it("lets a failing key look-up through instead of calling the token invalid", async () => {
    const { tokens, sign } = setup();
    await expect(tokens.verify(sign({}, { keyid: "broken" }))).rejects.toThrow("key store unreachable");
  });
});

describe("verified tokens kept (ACCESS_TOKEN_CACHE_SIZE)", () => {
  const signatureChecks = () => vi.spyOn(jwt, "verify");

  it("checks a repeated token's signature once, and still refuses it from the moment it expires", async () => {
    const { tokens, clock } = setup();
    const token = await tokens.sign(claims);
    const checks = signatureChecks();
    try {
      for (let i = 0; i < 3; i++) expect(await tokens.verify(token)).toEqual(claims);
      expect(checks).toHaveBeenCalledTimes(1);
      clock.advance(899_999);
      expect(await tokens.verify(token)).toEqual(claims);
      clock.advance(1);
      await invalid(tokens.verify(token));
    } finally {
      checks.mockRestore();
    }
  });

  it("refuses a kept token once its key is retired, and checks it afresh once the kid names another key", async () => {
    const { tokens, ring } = setup();
    const token = await tokens.sign(claims);
    await tokens.verify(token);
    const k1 = ring.k1;
    ring.k1 = undefined; // retired
    await invalid(tokens.verify(token));
    ring.k1 = generateKeyPairSync("ec", { namedCurve: "P-256" }).publicKey; // "k1" now names another key
    await invalid(tokens.verify(token));
    ring.k1 = k1;
    expect(await tokens.verify(token)).toEqual(claims);
  });

  it("lets a failing key look-up through for a kept token too", async () => {
    const { tokens, ring } = setup();
    const token = await tokens.sign(claims);
    await tokens.verify(token);
    ring.down = true;
    await expect(tokens.verify(token)).rejects.toThrow("key store unreachable");
  });

  it("keeps no refused token: each try is checked in full", async () => {
    const { tokens, sign } = setup();
    const foreign = sign({}, {}, generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey);
    const checks = signatureChecks();
    try {
      await invalid(tokens.verify(foreign));
      await invalid(tokens.verify(foreign));
      expect(checks).toHaveBeenCalledTimes(2);
    } finally {
      checks.mockRestore();
    }
  });

  it("keeps at most the configured number, dropping the oldest, and none with 0", async () => {
    const { tokens, clock } = setup({ verifiedTokensKept: 2 });
    const [a, b] = [await tokens.sign(claims), (clock.advance(1_000), await tokens.sign(claims))];
    const c = (clock.advance(1_000), await tokens.sign(claims));
    const checks = signatureChecks();
    try {
      for (const token of [a, b, c]) await tokens.verify(token); // 3 checks; a is dropped for c
      await tokens.verify(c);
      await tokens.verify(b);
      expect(checks).toHaveBeenCalledTimes(3);
      await tokens.verify(a);
      expect(checks).toHaveBeenCalledTimes(4);

      const none = setup({ verifiedTokensKept: 0 });
      const token = await none.tokens.sign(claims);
      await none.tokens.verify(token);
      await none.tokens.verify(token);
      expect(checks).toHaveBeenCalledTimes(6);
    } finally {
      checks.mockRestore();
    }
  });
});
