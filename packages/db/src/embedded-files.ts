import { PGlite } from "@electric-sql/pglite";
import { createHash } from "node:crypto";
import { readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { applyMigrations, defaultMigrationsDir, readMigrations, type SqlRunner } from "./migrator.js";

/**
 * Where the build writes the image a new DATA_DIR starts from (`npm run build` of this package), read the
 * same way from src (tests) and from dist.
 */
export const defaultImageDir = fileURLToPath(new URL("../dist/", import.meta.url));
const imageName = "embedded-image.tar.gz";
const stampName = "embedded-image.json";

export interface ImageLocation {
  /** The directory holding the image and its stamp. */
  imageDir?: string;
  migrationsDir?: string;
}

/**
 * What an image was made from: the migrations (names and checksums) and PGlite's version. An image is
 * used only by code with the same, so it never holds a migration the code does not have, a changed one,
 * or files of another PostgreSQL.
 */
async function fingerprint(migrationsDir: string): Promise<string> {
  const migrations = await readMigrations(migrationsDir);
  const hash = createHash("sha256").update(`pglite ${pgliteVersion()}\n`);
  for (const { name, checksum } of migrations) hash.update(`${name} ${checksum}\n`);
  return hash.digest("hex");
}

function pgliteVersion(): string {
  // The package exports no package.json; it sits one directory above its entry point.
  const require = createRequire(import.meta.url);
  const manifest = require(path.join(path.dirname(require.resolve("@electric-sql/pglite")), "..", "package.json")) as { version: string };
  return manifest.version;
}

/**
 * Writes an empty embedded database with every migration applied, gzipped, and its stamp. Made with
 * PostgreSQL's default settings, as a DATA_DIR's database runs.
 */
export async function writeEmbeddedImage({ imageDir = defaultImageDir, migrationsDir = defaultMigrationsDir }: ImageLocation = {}): Promise<void> {
  const pglite = new PGlite();
  try {
    await applyMigrations(pgliteRunner(pglite), migrationsDir);
    const image = await pglite.dumpDataDir("gzip");
    await writeFile(path.join(imageDir, imageName), new Uint8Array(await image.arrayBuffer()));
    await writeFile(path.join(imageDir, stampName), JSON.stringify({ fingerprint: await fingerprint(migrationsDir) }) + "\n");
  } finally {
    await pglite.close();
  }
}

/** The image, when there is one made from this code's migrations and PGlite; otherwise undefined. */
export async function readEmbeddedImage({ imageDir = defaultImageDir, migrationsDir = defaultMigrationsDir }: ImageLocation = {}): Promise<Blob | undefined> {
  const stamp = await readFile(path.join(imageDir, stampName), "utf8").then(
    (text) => JSON.parse(text) as { fingerprint?: unknown },
    () => undefined,
  );
  if (stamp?.fingerprint !== (await fingerprint(migrationsDir))) return undefined;
  const bytes = await readFile(path.join(imageDir, imageName)).catch(() => undefined);
  return bytes && new Blob([new Uint8Array(bytes)], { type: "application/x-gzip" });
}

/**
 * Creates a DATA_DIR's database from the image where the directory has none yet. PostgreSQL's initdb in
 * WebAssembly writes to files at a third of its speed in memory (6 s of a first start); unpacking the
 * image takes 2 s, and its migrations are applied already. The files are unpacked beside `pgdataPath`
 * and renamed into place, so a start killed half-way leaves no half-made database to resume from. A
 * directory with files of its own is left alone, and without a matching image PGlite runs initdb as before.
 */
export async function createFromImage(pgdataPath: string, location: ImageLocation = {}): Promise<boolean> {
  const unpacking = `${pgdataPath}.unpacking`;
  await rm(unpacking, { recursive: true, force: true });
  const existing = await readdir(pgdataPath).catch(() => undefined);
  if (existing && existing.length > 0) return false;
  const image = await readEmbeddedImage(location);
  if (!image) return false;
  const pglite = new PGlite({ dataDir: unpacking, loadDataDir: image });
  await pglite.waitReady;
  await pglite.close();
  if (existing) await rm(pgdataPath, { recursive: true, force: true });
  await rename(unpacking, pgdataPath);
  return true;
}

export function pgliteRunner(pglite: PGlite): SqlRunner {
  const sql: SqlRunner = {
    query: async (text, params) => (await pglite.query<Record<string, unknown>>(text, params as unknown[])).rows,
    exec: async (text) => void (await pglite.exec(text)),
    // One process owns the embedded database (see embedded.ts), so no cross-process lock is needed.
    withLock: (fn) => fn(sql),
  };
  return sql;
}
