import { createHash, randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The smallest raw-SQL surface the migrator and health checks need, on pg and PGlite alike. */
export interface SqlRunner {
  query(text: string, params?: readonly unknown[]): Promise<Record<string, unknown>[]>;
  exec(text: string): Promise<void>;
  /** Runs fn while holding the database-wide migration lock. */
  withLock<T>(fn: (sql: SqlRunner) => Promise<T>): Promise<T>;
}

export interface MigrationReport {
  applied: string[];
  alreadyApplied: string[];
}

export const defaultMigrationsDir = fileURLToPath(new URL("../../../prisma/migrations", import.meta.url));

interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

export async function readMigrations(dir = defaultMigrationsDir): Promise<MigrationFile[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries.filter((e) => e.isDirectory()).map((e) => e.name).sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(path.join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    }),
  );
}

// Same table as `prisma migrate deploy` keeps, so Prisma's CLI can take over where it can run.
const historyTable = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

/**
 * Applies every migration not yet recorded, each in its own transaction, in name order.
 * A recorded migration whose file has changed stops the start: history is never rewritten.
 */
export async function applyMigrations(runner: SqlRunner, dir = defaultMigrationsDir): Promise<MigrationReport> {
  const migrations = await readMigrations(dir);
  return runner.withLock(async (sql) => {
    await sql.exec(historyTable);
    const rows = await sql.query(
      `SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
    );
    const done = new Map(rows.map((r) => [String(r.migration_name), String(r.checksum)]));
    const report: MigrationReport = { applied: [], alreadyApplied: [] };
    for (const migration of migrations) {
      const recorded = done.get(migration.name);
      if (recorded !== undefined) {
        if (recorded !== migration.checksum) {
          throw new Error(`Migration ${migration.name} was changed after it was applied (checksum mismatch).`);
        }
        report.alreadyApplied.push(migration.name);
        continue;
      }
      await sql.exec("BEGIN");
      try {
        await sql.exec(migration.sql);
        await sql.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count)
           VALUES ($1, $2, now(), $3, 1)`,
          [randomUUID(), migration.checksum, migration.name],
        );
        await sql.exec("COMMIT");
      } catch (error) {
        await sql.exec("ROLLBACK");
        throw new Error(`Migration ${migration.name} failed: ${(error as Error).message}`, { cause: error });
      }
      report.applied.push(migration.name);
    }
    return report;
  });
}

/** Migrations on disk that the database has not recorded as applied. */
export async function listPendingMigrations(runner: SqlRunner, dir = defaultMigrationsDir): Promise<string[]> {
  const migrations = await readMigrations(dir);
  const rows = await runner
    .query(`SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`)
    .catch(() => []);
  const done = new Set(rows.map((r) => String(r.migration_name)));
  return migrations.map((m) => m.name).filter((name) => !done.has(name));
}
