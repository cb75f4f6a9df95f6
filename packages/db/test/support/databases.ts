/**
 * The databases the db package's own tests run on: the embedded one, in memory, and a scratch
 * PostgreSQL database when PostgreSQL answers. Under CI=true PostgreSQL must answer: a skipped half
 * would let the suite pass without it.
 */
import { createScratchDatabase, isPostgresReachable, openDatabase, type Database } from "../../src/index.js";
import { plainOf, type PlainSql } from "../../src/plain-access.js";

const adminUrl = process.env.MTEJA_TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

export interface TestDatabase {
  db: Database;
  /** A scratch PostgreSQL database's URL (for a connection of the test's own); undefined when embedded. */
  url?: string | undefined;
  /** Closes the database and drops a scratch one. */
  drop(): Promise<void>;
}

export interface DatabaseTarget {
  name: "embedded" | "postgres";
  skip: boolean;
  open(): Promise<TestDatabase>;
}

/** Both targets; `prefix` names the scratch PostgreSQL database (`<prefix>_<random>`). */
export async function databaseTargets(prefix: string, poolMax = 2): Promise<DatabaseTarget[]> {
  const postgresReachable = await isPostgresReachable(adminUrl);
  if (!postgresReachable && process.env.CI === "true") throw new Error(`PostgreSQL is required under CI=true but ${adminUrl} is not reachable`);
  return [
    {
      name: "embedded",
      skip: false,
      open: async () => {
        const db = await openDatabase({});
        return { db, drop: () => db.close() };
      },
    },
    {
      name: "postgres",
      skip: !postgresReachable,
      open: async () => {
        const scratch = await createScratchDatabase(adminUrl, prefix);
        const db = await openDatabase({ url: scratch.url, poolMax });
        return {
          db,
          url: scratch.url,
          drop: async () => {
            await db.close();
            await scratch.drop();
          },
        };
      },
    },
  ];
}

/** The database's plain SQL (the migrator's runner, autocommit statements), which only this package's code reaches. */
export function plainSqlOf(db: Database): PlainSql {
  return plainOf(db.unscoped("test"));
}
