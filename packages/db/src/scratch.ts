import { randomBytes } from "node:crypto";
import pg from "pg";

export interface ScratchDatabase {
  /** Its name (a `template` for another). */
  name: string;
  /** Connection URL of the new, empty database. */
  url: string;
  drop(): Promise<void>;
}

const databaseName = /^[a-z_][a-z0-9_]*$/;

/**
 * Creates a throwaway PostgreSQL database next to `adminUrl` (for tests and benchmarks, which each
 * create and drop their own). The name is random, so parallel runs never collide. `template`: a copy of
 * that database (one nobody is connected to), a migrated one say, instead of an empty one.
 */
export async function createScratchDatabase(adminUrl: string, prefix = "mteja_scratch", { template }: { template?: string | undefined } = {}): Promise<ScratchDatabase> {
  const name = `${prefix}_${randomBytes(6).toString("hex")}`;
  if (!databaseName.test(name)) throw new Error(`Invalid database name ${name}`);
  if (template !== undefined && !databaseName.test(template)) throw new Error(`Invalid template database name ${template}`);
  await withAdmin(adminUrl, (client) => client.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ""}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: () => withAdmin(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

/** True when a PostgreSQL server answers at adminUrl within two seconds. */
export async function isPostgresReachable(adminUrl: string): Promise<boolean> {
  return withAdmin(adminUrl, (client) => client.query("SELECT 1"), 2000).then(
    () => true,
    () => false,
  );
}

async function withAdmin<T>(adminUrl: string, fn: (client: pg.Client) => Promise<T>, timeoutMs?: number): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl, ...(timeoutMs ? { connectionTimeoutMillis: timeoutMs } : {}) });
  try {
    await client.connect();
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}
