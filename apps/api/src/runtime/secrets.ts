import { randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";

/**
 * DATA_ENCRYPTION_KEY as 32 bytes. When it is not configured (the embedded default), one is
 * generated once and kept in DATA_DIR/secrets.json, readable by this user only.
 */
export async function resolveDataEncryptionKey(configured: string | undefined, dataDir: string): Promise<Buffer> {
  if (configured) return decodeKey(configured);
  const file = path.resolve(dataDir, "secrets.json");
  try {
    const stored = JSON.parse(await readFile(file, "utf8")) as { dataEncryptionKey?: string };
    if (stored.dataEncryptionKey) return decodeKey(stored.dataEncryptionKey);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const key = randomBytes(32);
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFile(file, JSON.stringify({ dataEncryptionKey: key.toString("base64url") }, null, 2), { mode: 0o600, flag: "wx" });
  return key;
}

function decodeKey(value: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, "hex") : Buffer.from(value, "base64url");
  if (key.length !== 32) throw new Error("DATA_ENCRYPTION_KEY must decode to 32 bytes");
  return key;
}
