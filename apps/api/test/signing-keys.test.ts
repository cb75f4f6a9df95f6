/**
 * Access-token signing keys stored in the database: instances starting at once on an empty database
 * agree on one key, and the JWKS publishes every key whose tokens may still be valid.
 */
import { openDatabase } from "@mteja/db";
import { rotateSigningKey } from "@mteja/domain";
import { createPublicKey, generateKeyPairSync, randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { registerUser, RestClient, startTestApp, type TestApp } from "./support/app.js";
import { testClock } from "./support/clock.js";
import { createTestDatabase, skipThisTarget, type TestDatabase } from "./support/database.js";

/** Another connection pool on the same database (PostgreSQL), as a second process would have; embedded has one. */
async function secondConnection(database: TestDatabase): Promise<TestDatabase> {
  if (!database.url) return { ...database, drop: async () => undefined };
  const db = await openDatabase({ url: database.url, poolMax: 5 });
  return { db, url: database.url, drop: () => db.close() };
}

async function jwks(app: TestApp): Promise<{ keys: Array<{ kid: string }> }> {
  const res = await fetch(`${app.url}/.well-known/jwks.json`);
  expect(res.status).toBe(200);
  return (await res.json()) as { keys: Array<{ kid: string }> };
}

async function expectAccepted(token: string, apps: TestApp[]): Promise<void> {
  for (const app of apps) {
    const me = await new RestClient(app.url).get("/api/v1/auth/me", token);
    expect(me.status, `at ${app.url}`).toBe(200);
  }
}

async function expectAcceptedEverywhere(apps: TestApp[]): Promise<void> {
  for (const issuer of apps) await expectAccepted((await registerUser(new RestClient(issuer.url))).accessToken, apps);
}

const kidOf = (token: string): string => (JSON.parse(Buffer.from(token.split(".")[0]!, "base64url").toString()) as { kid: string }).kid;

describe.skipIf(skipThisTarget)("signing keys", () => {
  const cleanup: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const close of cleanup.reverse()) await close();
  });

  it("two instances starting at once on an empty database end up with one key; each accepts the other's tokens, and so does a later one", async () => {
    const database = await createTestDatabase();
    cleanup.push(() => database.drop());
    const other = await secondConnection(database);
    cleanup.push(() => other.drop());
    const env = { DATA_ENCRYPTION_KEY: randomBytes(32).toString("hex") };

    const [a, b] = await Promise.all([startTestApp(env, { database }), startTestApp(env, { database: other })]);
    cleanup.push(() => a.close(), () => b.close());
    const later = await startTestApp(env, { database });
    cleanup.push(() => later.close());

    const stored = await database.db.unscoped("test").signingKey.findMany();
    expect(stored).toHaveLength(1);
    for (const app of [a, b, later]) expect((await jwks(app)).keys.map((k) => k.kid)).toEqual([stored[0]!.kid]);
    await expectAcceptedEverywhere([a, b, later]);
  });

  it("after a rotation every instance signs with the new key, and the retired one is published and accepted until its tokens have expired", async () => {
    const clock = testClock();
    const database = await createTestDatabase();
    cleanup.push(() => database.drop());
    const other = await secondConnection(database);
    cleanup.push(() => other.drop());
    const env = { DATA_ENCRYPTION_KEY: randomBytes(32).toString("hex"), ACCESS_TOKEN_TTL_SECONDS: "900" };
    const a = await startTestApp(env, { database, now: clock.now });
    cleanup.push(() => a.close());
    const b = await startTestApp(env, { database: other, now: clock.now });
    cleanup.push(() => b.close());
    const before = await registerUser(new RestClient(a.url));
    const [first] = (await jwks(a)).keys.map((k) => k.kid);
    expect(kidOf(before.accessToken)).toBe(first);

    const rotatedAt = clock.now();
    const rotation = await rotateSigningKey(a.deps.db, a.deps.cipher, { now: rotatedAt, accessTokenTtlSeconds: 900 });
    expect(rotation.retired).toEqual({ kid: first, notAfter: new Date(rotatedAt.getTime() + (900 + 300) * 1000) });
    const stored = await database.db.unscoped("test").signingKey.findMany({ orderBy: { createdAt: "asc" } });
    expect(stored.map((k) => [k.kid, k.retiredAt?.getTime() ?? null])).toEqual([
      [first, rotatedAt.getTime()],
      [rotation.kid, null],
    ]);

    // A new instance signs with the new key; the others accept its tokens at once, and its own JWKS has both keys.
    const c = await startTestApp(env, { database, now: clock.now });
    cleanup.push(() => c.close());
    const after = await registerUser(new RestClient(c.url));
    expect(kidOf(after.accessToken)).toBe(rotation.kid);
    await expectAccepted(after.accessToken, [a, b, c]);
    await expectAccepted(before.accessToken, [a, b, c]);
    for (const app of [a, b, c]) expect((await jwks(app)).keys.map((k) => k.kid)).toEqual([rotation.kid, first]);

    // Within a minute the instances that were running sign with the new key too.
    clock.advance(61);
    for (const app of [a, b]) expect(kidOf((await registerUser(new RestClient(app.url))).accessToken)).toBe(rotation.kid);

    // The retired key is published until its last token can have expired (lifetime + margin), then no longer.
    clock.advance(900 + 300 - 61 - 2);
    for (const app of [a, b, c]) expect((await jwks(app)).keys.map((k) => k.kid)).toEqual([rotation.kid, first]);
    clock.advance(3);
    for (const app of [a, b, c]) expect((await jwks(app)).keys.map((k) => k.kid)).toEqual([rotation.kid]);
  });

  it("rotations at once, and a rotation on a database without keys, leave exactly one current key", async () => {
    const clock = testClock();
    const database = await createTestDatabase();
    cleanup.push(() => database.drop());
    const other = await secondConnection(database);
    cleanup.push(() => other.drop());
    const a = await startTestApp({ DATA_ENCRYPTION_KEY: randomBytes(32).toString("hex") }, { database, now: clock.now });
    cleanup.push(() => a.close());
    await database.db.unscoped("test").signingKey.deleteMany();

    const firstEver = await rotateSigningKey(a.deps.db, a.deps.cipher, { now: clock.now(), accessTokenTtlSeconds: 900 });
    expect(firstEver.retired).toBeUndefined();
    const options = { now: clock.now(), accessTokenTtlSeconds: 900 };
    const [x, y] = await Promise.all([rotateSigningKey(database.db, a.deps.cipher, options), rotateSigningKey(other.db, a.deps.cipher, options)]);
    const current = await database.db.unscoped("test").signingKey.findMany({ where: { retiredAt: null } });
    expect(current).toHaveLength(1);
    expect([x.kid, y.kid]).toContain(current[0]!.kid);
    // The two rotations took turns: one retired the first key, the other retired the key the first made.
    expect([x.retired?.kid, y.retired?.kid].sort()).toEqual([firstEver.kid, current[0]!.kid === x.kid ? y.kid : x.kid].sort());
    expect(await database.db.unscoped("test").signingKey.count()).toBe(3);
  });

  it("signs with JWT_PRIVATE_KEY when it is configured, publishes only that key, and stores none", async () => {
    const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const pem = privateKey.export({ format: "pem", type: "pkcs8" }).toString();
    const app = await startTestApp({ JWT_PRIVATE_KEY: pem });
    cleanup.push(() => app.close());
    const { x, y } = createPublicKey(privateKey).export({ format: "jwk" });
    const published = (await jwks(app)).keys;
    expect(published).toEqual([expect.objectContaining({ kty: "EC", crv: "P-256", x, y, alg: "ES256", use: "sig" })]);
    const user = await registerUser(new RestClient(app.url));
    expect(kidOf(user.accessToken)).toBe(published[0]!.kid);
    await expectAccepted(user.accessToken, [app]);
    expect(await app.deps.db.unscoped("test").signingKey.count()).toBe(0);
  });
});
