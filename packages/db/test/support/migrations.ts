/**
 * A migration's test starts from a database as the release before it left it: the embedded database
 * with every migration older than the one under test applied, for the test to fill with old rows and
 * then migrate.
 */
import { cp, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { defaultMigrationsDir, openDatabase, type Database } from "../../src/index.js";
import { applyMigrations } from "../../src/migrator.js";
import { plainSqlOf } from "./databases.js";

/** The migrations older than `name`, copied into a directory of their own. */
async function migrationsBefore(name: string): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), "mteja-migrations-"));
  for (const entry of await readdir(defaultMigrationsDir, { withFileTypes: true })) {
    if (entry.isDirectory() && entry.name < name) {
      await cp(path.join(defaultMigrationsDir, entry.name), path.join(dir, entry.name), { recursive: true });
    }
  }
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Runs `test` on an embedded database migrated up to `migration`, not including it; closes it after. */
export async function withDatabaseBefore(migration: string, test: (db: Database) => Promise<void>): Promise<void> {
  const db = await openDatabase({});
  const earlier = await migrationsBefore(migration);
  try {
    await applyMigrations(plainSqlOf(db).sql, earlier.dir);
    await test(db);
  } finally {
    await earlier.remove();
    await db.close();
  }
}

/** The uuid of the test's n-th row (n < 10). */
export const rowId = (n: number) => `00000000-0000-4000-8000-00000000000${n}`;
