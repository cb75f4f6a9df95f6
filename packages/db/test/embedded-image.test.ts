/**
 * An embedded database opened from an image (`createEmbeddedImage`): migrated already, and a copy of its
 * own, so what one test database writes no other opened from the same image sees.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEmbeddedImage, openDatabase, type Database, type EmbeddedImage } from "../src/index.js";

describe("an embedded database opened from an image", () => {
  let image: EmbeddedImage;
  const opened: Database[] = [];
  const open = async () => {
    const db = await openDatabase({ embeddedImage: image });
    opened.push(db);
    return db;
  };

  beforeAll(async () => {
    image = await createEmbeddedImage();
  });
  afterAll(async () => {
    for (const db of opened) await db.close();
  });

  it("has every migration applied, and migrating it applies none", async () => {
    const db = await open();
    expect(await db.pendingMigrations()).toEqual([]);
    expect((await db.migrate()).applied).toEqual([]);
    expect(await db.unscoped("test").tenant.count()).toBe(0);
  });

  it("is a copy of its own: rows written in one are in no other, nor in the image", async () => {
    const first = await open();
    const second = await open();
    await first.unscoped("test").tenant.create({ data: { id: "shop-a", name: "A" } });
    expect(await first.unscoped("test").tenant.count()).toBe(1);
    expect(await second.unscoped("test").tenant.count()).toBe(0);
    expect(await (await open()).unscoped("test").tenant.count()).toBe(0);
  });

  it("without an image, an in-memory database starts empty, with every migration pending", async () => {
    const db = await openDatabase({});
    opened.push(db);
    expect((await db.pendingMigrations()).length).toBeGreaterThan(0);
  });

  it("keeps 16 MB of shared buffers in memory, not PostgreSQL's 128 MB: its files are in memory already", async () => {
    const fromImage = await open();
    const empty = await openDatabase({});
    opened.push(empty);
    for (const db of [fromImage, empty]) {
      expect(await db.unscoped("test").$queryRaw`SHOW shared_buffers`).toEqual([{ shared_buffers: "16MB" }]);
    }
  });
});
