/**
 * The database each API test file runs on: embedded (in-memory PGlite) or a PostgreSQL database
 * created for the file and dropped after it. MTEJA_TEST_DB picks the target (a vitest project each).
 */
import { openDatabase, type Database } from "@mteja/db";
import { randomBytes } from "node:crypto";
import pg from "pg";

export const adminUrl = process.env.MTEJA_TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
export const target = (process.env.MTEJA_TEST_DB ?? "embedded") as "embedded" | "postgres";

async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** True when this project's tests must be skipped: PostgreSQL is absent and CI does not require it. */
export const skipThisTarget: boolean = await (async () => {
  if (target !== "postgres") return false;
  if (await postgresReachable()) return false;
  if (process.env.CI === "true") throw new Error(`PostgreSQL is required under CI=true but ${adminUrl} is not reachable`);
  console.warn(`PostgreSQL at ${adminUrl} is not reachable: skipping the postgres project`);
  return true;
})();

export interface TestDatabase {
  db: Database;
  url: string | undefined;
  drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  if (target === "embedded") {
    const db = await openDatabase({});
    return { db, url: undefined, drop: () => db.close() };
  }
  const name = `mteja_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db = await openDatabase({ url: url.toString(), poolMax: 5 });
  return {
    db,
    url: url.toString(),
    drop: async () => {
      await db.close();
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}
