import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createSigningKeyRing } from "../../src/auth/tokens/signing-key-ring.js";
import type { KeySet, SigningKeyPair, VerificationKey } from "../../src/auth/tokens/signing-keys.js";

function pair(kid: string): SigningKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  return { kid, privateKey, publicKey, publicJwk: { kty: "EC" } };
}

function keySet(signing: SigningKeyPair, retired: Array<{ key: SigningKeyPair; notAfter: Date }> = []): KeySet {
  const verification: VerificationKey[] = [{ ...signing, notAfter: null }, ...retired.map(({ key, notAfter }) => ({ ...key, notAfter }))];
  return { signing, verification };
}

/** A key source the test changes by hand, counting its reads, and a clock the test moves. */
function setup(initial: KeySet) {
  let current = initial;
  let failing = false;
  let now = Date.parse("2026-03-01T08:00:00Z");
  const errors: unknown[] = [];
  const source = {
    reads: 0,
    set(next: KeySet) {
      current = next;
    },
    fail(value: boolean) {
      failing = value;
    },
    advance(seconds: number) {
      now += seconds * 1000;
    },
    errors,
  };
  const ring = createSigningKeyRing({
    load: async () => {
      source.reads += 1;
      if (failing) throw new Error("database unreachable");
      return current;
    },
    now: () => new Date(now),
    maxAgeSeconds: 60,
    unknownKidReloadSeconds: 1,
    onReloadError: (error) => errors.push(error),
  });
  return { source, ring, now: () => new Date(now) };
}

describe("signing key ring", () => {
  it("re-reads the keys once they are older than the maximum age, not before", async () => {
    const one = pair("one");
    const two = pair("two");
    const { source, ring } = setup(keySet(one));
    const r = await ring;
    source.set(keySet(two, [{ key: one, notAfter: new Date(Date.parse("2026-03-01T09:00:00Z")) }]));
    source.advance(59);
    expect((await r.signingKey()).kid).toBe("one");
    expect(source.reads).toBe(1);
    source.advance(1);
    expect((await r.signingKey()).kid).toBe("two");
    expect((await r.publishedKeys()).map((k) => k.kid)).toEqual(["two", "one"]);
    expect(source.reads).toBe(2);
  });

  it("re-reads at once for an unknown kid, but at most once a second however many made-up kids arrive", async () => {
    const one = pair("one");
    const two = pair("two");
    const { source, ring } = setup(keySet(one));
    const r = await ring;
    source.set(keySet(two, [{ key: one, notAfter: new Date(Date.parse("2026-03-01T09:00:00Z")) }]));
    expect(await r.verificationKey("two")).toBe(two.publicKey);
    expect(source.reads).toBe(2);
    for (let i = 0; i < 20; i++) expect(await r.verificationKey(`made-up-${i}`)).toBeUndefined();
    expect(source.reads).toBe(2);
    source.advance(1);
    expect(await r.verificationKey("made-up-again")).toBeUndefined();
    expect(source.reads).toBe(3);
  });

  it("neither publishes nor accepts a retired key after its not-after time", async () => {
    const one = pair("one");
    const two = pair("two");
    const { source, ring, now } = setup(keySet(two, [{ key: one, notAfter: new Date(Date.parse("2026-03-01T08:00:30Z")) }]));
    const r = await ring;
    expect(now().toISOString()).toBe("2026-03-01T08:00:00.000Z");
    expect(await r.verificationKey("one")).toBe(one.publicKey);
    source.advance(30);
    expect(await r.verificationKey("one")).toBeUndefined();
    expect((await r.publishedKeys()).map((k) => k.kid)).toEqual(["two"]);
  });

  it("keeps the keys it has when a re-read fails, reports it, and tries again a full interval later", async () => {
    const one = pair("one");
    const { source, ring } = setup(keySet(one));
    const r = await ring;
    source.fail(true);
    source.advance(60);
    expect((await r.signingKey()).kid).toBe("one");
    expect(await r.verificationKey("one")).toBe(one.publicKey);
    expect(source.errors).toHaveLength(1);
    expect(source.reads).toBe(2);
    source.advance(59);
    await r.signingKey();
    expect(source.reads).toBe(2);
  });

  it("shares one re-read between concurrent callers", async () => {
    const { source, ring } = setup(keySet(pair("one")));
    const r = await ring;
    source.advance(60);
    await Promise.all([r.signingKey(), r.publishedKeys(), r.verificationKey("one"), r.signingKey()]);
    expect(source.reads).toBe(2);
  });
});
