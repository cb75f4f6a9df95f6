/**
 * The database each API test file runs on: embedded (in-memory PGlite) or a PostgreSQL database
 * created for the file and dropped after it. MTEJA_TEST_DB picks the target (a vitest project each).
 */
import { createScratchDatabase, isPostgresReachable, openDatabase, type Database } from "@mteja/db";
import { inject } from "vitest";
import { adminUrl, target } from "./database-settings.js";
import { openEmbeddedTestDatabase } from "./embedded-database.js";

export { adminUrl, target };

/** True when this project's tests must be skipped: PostgreSQL is absent and CI does not require it. */
export const skipThisTarget: boolean = await (async () => {
  if (target !== "postgres") return false;
  if (await isPostgresReachable(adminUrl)) return false;
  if (process.env.CI === "true") throw new Error(`PostgreSQL is required under CI=true but ${adminUrl} is not reachable`);
  console.warn(`PostgreSQL at ${adminUrl} is not reachable: skipping the postgres project`);
  return true;
})();

/**
 * True where a suite with nothing database-specific (the HTTP surface: transports, CORS, bad input,
 * logs, …) does not run. Such a suite runs once: on PostgreSQL where it answers — its files start in a
 * third of the embedded database's time — else on the embedded database. Everything that reads or
 * writes rows in its own way keeps running on both.
 */
export const skipDatabaseAgnostic: boolean = await (async () => {
  const postgresAnswers = target === "postgres" ? !skipThisTarget : await isPostgresReachable(adminUrl);
  return target !== (postgresAnswers ? "postgres" : "embedded");
})();

export interface TestDatabase {
  db: Database;
  url: string | undefined;
  drop(): Promise<void>;
}

/** The settings the composition root would open the database with (DATABASE_PREPARED_STATEMENTS, the time-outs). */
export interface TestDatabaseOptions {
  preparedStatements?: number | undefined;
  connectTimeoutMs?: number | undefined;
  statementTimeoutMs?: number | undefined;
}

export async function createTestDatabase(options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  if (target === "embedded") {
    const db = await openEmbeddedTestDatabase();
    return { db, url: undefined, drop: () => db.close() };
  }
  // A copy of the run's migrated database (postgres-template.ts), where there is one.
  const scratch = await createScratchDatabase(adminUrl, "mteja_test", { template: inject("postgresTemplate") });
  const db = await openDatabase({ url: scratch.url, poolMax: 5, ...options });
  return {
    db,
    url: scratch.url,
    drop: async () => {
      await db.close();
      await scratch.drop();
    },
  };
}
