/**
 * A new DATA_DIR's database is unpacked from the image the build made (src/embedded-files.ts): migrated
 * already, with PostgreSQL's own settings, never over a directory that holds files of its own, and only
 * from an image made from this code's migrations. Needs the package built (the test command builds it).
 */
import { cp, mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFromImage, defaultImageDir, readEmbeddedImage, writeEmbeddedImage } from "../src/embedded-files.js";
import { defaultMigrationsDir, openDatabase, readMigrations } from "../src/index.js";

const built = existsSync(path.join(defaultImageDir, "embedded-image.json"));
if (!built && process.env.CI === "true") throw new Error("packages/db/dist has no embedded image: build before testing");

const scratch: string[] = [];
const directory = async () => {
  const dir = await mkdtemp(path.join(tmpdir(), "mteja-image-"));
  scratch.push(dir);
  return dir;
};
afterAll(async () => {
  for (const dir of scratch) await rm(dir, { recursive: true, force: true });
});

describe.skipIf(!built)("a new DATA_DIR", () => {
  it("starts from the built image: every migration applied before any is asked for, with PostgreSQL's own 128 MB of buffers", async () => {
    const dataDir = await directory();
    const db = await openDatabase({ dataDir });
    try {
      expect(await db.pendingMigrations()).toEqual([]);
      expect(await db.unscoped("test").$queryRaw`SHOW shared_buffers`).toEqual([{ shared_buffers: "128MB" }]);
      expect(await db.unscoped("test").tenant.count()).toBe(0);
    } finally {
      await db.close();
    }
    expect((await readdir(dataDir)).sort()).toEqual(["pgdata"]);
  });

  it("keeps its database: opened again, what was written is there", async () => {
    const dataDir = await directory();
    const first = await openDatabase({ dataDir });
    await first.unscoped("test").tenant.create({ data: { id: "duka", name: "Duka" } });
    await first.close();
    const again = await openDatabase({ dataDir });
    try {
      expect(await again.unscoped("test").tenant.findMany({ select: { id: true } })).toEqual([{ id: "duka" }]);
    } finally {
      await again.close();
    }
  });

  it("after a start killed while unpacking: the half-unpacked files are dropped and the database made whole", async () => {
    const dataDir = await directory();
    await mkdir(path.join(dataDir, "pgdata.unpacking", "base"), { recursive: true });
    await writeFile(path.join(dataDir, "pgdata.unpacking", "PG_VERSION"), "17\n");
    const db = await openDatabase({ dataDir });
    try {
      expect(await db.pendingMigrations()).toEqual([]);
    } finally {
      await db.close();
    }
    expect(existsSync(path.join(dataDir, "pgdata.unpacking"))).toBe(false);
  });
});

describe("the image", () => {
  let imageDir: string;
  beforeAll(async () => {
    imageDir = await directory();
    await writeEmbeddedImage({ imageDir });
  });

  it("is used only by code with the same migrations; without its stamp, not at all", async () => {
    expect(await readEmbeddedImage({ imageDir })).toBeInstanceOf(Blob);

    const migrationsDir = path.join(await directory(), "migrations");
    await cp(defaultMigrationsDir, migrationsDir, { recursive: true });
    await mkdir(path.join(migrationsDir, "29990101000000_later"));
    await writeFile(path.join(migrationsDir, "29990101000000_later", "migration.sql"), "CREATE TABLE later (id int);\n");
    expect(await readEmbeddedImage({ imageDir, migrationsDir })).toBeUndefined();

    const [first] = await readMigrations();
    await writeFile(path.join(migrationsDir, first!.name, "migration.sql"), `${first!.sql}\n-- changed\n`);
    await rm(path.join(migrationsDir, "29990101000000_later"), { recursive: true });
    expect(await readEmbeddedImage({ imageDir, migrationsDir })).toBeUndefined();

    const unstamped = await directory();
    await cp(path.join(imageDir, "embedded-image.tar.gz"), path.join(unstamped, "embedded-image.tar.gz"));
    expect(await readEmbeddedImage({ imageDir: unstamped })).toBeUndefined();
    const pgdata = path.join(await directory(), "pgdata");
    expect(await createFromImage(pgdata, { imageDir: unstamped })).toBe(false);
    expect(existsSync(pgdata)).toBe(false);
  });

  it("is never unpacked over a directory with files of its own", async () => {
    const pgdata = path.join(await directory(), "pgdata");
    await mkdir(pgdata);
    await writeFile(path.join(pgdata, "PG_VERSION"), "17\n");
    expect(await createFromImage(pgdata, { imageDir })).toBe(false);
    expect(await readdir(pgdata)).toEqual(["PG_VERSION"]);

    const empty = path.join(await directory(), "pgdata");
    await mkdir(empty);
    expect(await createFromImage(empty, { imageDir })).toBe(true);
    expect(await readdir(empty)).toContain("PG_VERSION");
  });
});
