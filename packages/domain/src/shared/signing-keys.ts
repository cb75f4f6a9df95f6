import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from "node:crypto";
import type { Database } from "@mteja/db";
import type { SigningKeyPair } from "./access-tokens.js";
import type { DataCipher } from "./data-cipher.js";

/**
 * The access-token signing keys: from JWT_PRIVATE_KEY when configured, otherwise generated once and
 * stored (encrypted) in the database, so every instance and every restart signs with the same key.
 */
export async function loadSigningKeys(db: Database, cipher: DataCipher, configuredPem: string | undefined): Promise<SigningKeyPair[]> {
  if (configuredPem) return [pairFromPrivate(createPrivateKey(configuredPem))];
  const stored = await db.prisma.signingKey.findMany({ where: { retiredAt: null, algorithm: "ES256" }, orderBy: { createdAt: "desc" } });
  if (stored.length > 0) return stored.map((row) => pairFromPrivate(createPrivateKey(cipher.decrypt(row.privateKeyEnc))));
  const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const pair = pairFromPrivate(privateKey);
  // Two instances starting at once may both generate: the insert that loses is ignored and re-read.
  await db.prisma.signingKey.createMany({
    data: [
      {
        kid: pair.kid,
        algorithm: "ES256",
        publicJwk: pair.publicJwk as object,
        privateKeyEnc: cipher.encrypt(privateKey.export({ format: "pem", type: "pkcs8" }).toString()),
      },
    ],
    skipDuplicates: true,
  });
  const rows = await db.prisma.signingKey.findMany({ where: { retiredAt: null, algorithm: "ES256" }, orderBy: { createdAt: "asc" }, take: 1 });
  return rows.map((row) => pairFromPrivate(createPrivateKey(cipher.decrypt(row.privateKeyEnc))));
}

function pairFromPrivate(privateKey: KeyObject): SigningKeyPair {
  if (privateKey.asymmetricKeyType !== "ec" || privateKey.asymmetricKeyDetails?.namedCurve !== "prime256v1") {
    throw new Error("JWT_PRIVATE_KEY must be an EC P-256 private key (ES256)");
  }
  const publicKey = createPublicKey(privateKey);
  const jwk = publicKey.export({ format: "jwk" }) as { kty: string; crv: string; x: string; y: string };
  const publicJwk = { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y };
  // RFC 7638 thumbprint: members in lexicographic order, no whitespace.
  const kid = createHash("sha256").update(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y })).digest("base64url");
  return { kid, privateKey, publicKey, publicJwk };
}
