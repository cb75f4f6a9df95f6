import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type JsonWebKey, type KeyObject } from "node:crypto";
import { signingKeys, type Database } from "@mteja/db";
import type { DataCipher } from "../../shared/data-cipher.js";

/**
 * The access-token signing keys: from JWT_PRIVATE_KEY when configured, otherwise generated once and
 * stored (encrypted) in the database, so every instance and every restart signs with the same key.
 * The database holds at most one current key (a partial unique index); a rotation retires it with a
 * "not after" time, until which it stays published and accepted.
 */

const algorithm = "ES256";

/**
 * How long a retired key outlives the access-token lifetime: instances that have not re-read their
 * keys yet may go on signing with it for a short while, and clocks differ a little.
 */
export const retiredKeyMarginSeconds = 5 * 60;

export interface VerificationKey {
  kid: string;
  publicKey: KeyObject;
  publicJwk: Record<string, unknown>;
  /** Null for the current key; for a retired one, the end of the last token it may have signed. */
  notAfter: Date | null;
}

export interface SigningKeyPair {
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  publicJwk: Record<string, unknown>;
}

/** The key that signs, and every key whose tokens may still be valid (the signing one first). */
export interface KeySet {
  signing: SigningKeyPair;
  verification: VerificationKey[];
}

export function configuredKeySet(pem: string): KeySet {
  const pair = pairFromPrivate(createPrivateKey(pem));
  return { signing: pair, verification: [{ ...pair, notAfter: null }] };
}

/** The stored keys still in use at `now`; creates the first key when there is none (once, whoever asks first). */
export async function loadStoredKeySet(db: Database, cipher: DataCipher, now: Date): Promise<KeySet> {
  let rows = await readUsableKeys(db, now);
  if (!rows.some((row) => row.retiredAt === null)) {
    await createFirstKey(db, cipher, now);
    rows = await readUsableKeys(db, now);
  }
  const current = rows.find((row) => row.retiredAt === null);
  if (!current) throw new Error("No current signing key after creating one");
  const signing = pairFromPrivate(createPrivateKey(cipher.decrypt(current.privateKeyEnc)));
  const retired = rows
    .filter((row) => row !== current)
    .map((row) => ({ kid: row.kid, publicKey: publicKeyFromJwk(row.publicJwk), publicJwk: publicMembers(row.publicJwk), notAfter: row.notAfter }));
  return { signing, verification: [{ ...signing, notAfter: null }, ...retired] };
}

export interface SigningKeyRotation {
  /** The new current key. */
  kid: string;
  /** The key it replaces (none when there was no key yet), published and accepted until notAfter. */
  retired: { kid: string; notAfter: Date } | undefined;
}

/**
 * Rotates the stored keys: a new current key, and the old one retired now with its "not after"
 * time (the access-token lifetime plus a margin). Running instances pick the new key up when they
 * re-read their keys (within a minute, or at once on seeing a token it signed).
 */
export async function rotateSigningKey(
  db: Database,
  cipher: DataCipher,
  options: { now: Date; accessTokenTtlSeconds: number },
): Promise<SigningKeyRotation> {
  const { now } = options;
  const notAfter = new Date(now.getTime() + (options.accessTokenTtlSeconds + retiredKeyMarginSeconds) * 1000);
  const next = newStoredKey(cipher, now);
  return db.transaction(db.unscoped("no-tenant-data"), async (tx) => {
    // Rotations and first-key creation take turns, so there is never a second current key.
    await signingKeys.lockForChange(tx);
    const current = await signingKeys.findCurrent(tx, algorithm);
    if (current) await signingKeys.retire(tx, current.kid, { at: now, notAfter });
    await signingKeys.insert(tx, next);
    return { kid: next.kid, retired: current ? { kid: current.kid, notAfter } : undefined };
  });
}

/** The current key and the retired ones whose tokens may still be valid. */
async function readUsableKeys(db: Database, now: Date) {
  return signingKeys.findCurrentAndValidAfter(db.unscoped("no-tenant-data"), algorithm, now);
}

async function createFirstKey(db: Database, cipher: DataCipher, now: Date): Promise<void> {
  const first = newStoredKey(cipher, now);
  await db.transaction(db.unscoped("no-tenant-data"), async (tx) => {
    // Instances starting at once on an empty database: the first to take the lock creates the key,
    // the others find it (and the unique index would refuse a second current key anyway).
    await signingKeys.lockForChange(tx);
    if ((await signingKeys.countCurrent(tx, algorithm)) === 0) await signingKeys.insert(tx, first);
  });
}

function newStoredKey(cipher: DataCipher, now: Date): signingKeys.NewSigningKey {
  const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const pair = pairFromPrivate(privateKey);
  return {
    kid: pair.kid,
    algorithm,
    publicJwk: pair.publicJwk as object,
    privateKeyEnc: cipher.encrypt(privateKey.export({ format: "pem", type: "pkcs8" }).toString()),
    createdAt: now,
  };
}

function pairFromPrivate(privateKey: KeyObject): SigningKeyPair {
  if (privateKey.asymmetricKeyType !== "ec" || privateKey.asymmetricKeyDetails?.namedCurve !== "prime256v1") {
    throw new Error("JWT_PRIVATE_KEY must be an EC P-256 private key (ES256)");
  }
  const publicKey = createPublicKey(privateKey);
  const publicJwk = publicMembers(publicKey.export({ format: "jwk" }));
  const { crv, kty, x, y } = publicJwk;
  // RFC 7638 thumbprint: members in lexicographic order, no whitespace.
  const kid = createHash("sha256").update(JSON.stringify({ crv, kty, x, y })).digest("base64url");
  return { kid, privateKey, publicKey, publicJwk };
}

function publicMembers(jwk: unknown): Record<string, unknown> {
  const { kty, crv, x, y } = jwk as JsonWebKey;
  return { kty, crv, x, y };
}

function publicKeyFromJwk(jwk: unknown): KeyObject {
  return createPublicKey({ key: publicMembers(jwk) as JsonWebKey, format: "jwk" });
}
