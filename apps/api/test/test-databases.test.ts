/**
 * Each PostgreSQL test file's database is a copy of the run's migrated one (support/postgres-template.ts):
 * migrated already, empty, and its own.
 */
import { afterAll, describe, expect, inject, it } from "vitest";
import { createTestDatabase, skipThisTarget, target, type TestDatabase } from "./support/database.js";

describe.skipIf(skipThisTarget || target !== "postgres")("a PostgreSQL test database", () => {
  const created: TestDatabase[] = [];
  const create = async () => {
    const database = await createTestDatabase();
    created.push(database);
    return database.db;
  };
  afterAll(async () => {
    for (const database of created) await database.drop();
  });

  it("is a copy of the run's migrated database: no migration pending, no rows", async () => {
    expect(inject("postgresTemplate")).toMatch(/^mteja_template_/);
    const db = await create();
    expect(await db.pendingMigrations()).toEqual([]);
    expect(await db.unscoped("test").tenant.count()).toBe(0);
  });

  it("is its own: rows written in one are in no other", async () => {
    const first = await create();
    const second = await create();
    await first.unscoped("test").tenant.create({ data: { id: "shop-a", name: "A" } });
    expect(await first.unscoped("test").tenant.count()).toBe(1);
    expect(await second.unscoped("test").tenant.count()).toBe(0);
  });
});
