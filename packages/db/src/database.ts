import { PGlite } from "@electric-sql/pglite";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { PrismaClient } from "./generated/prisma/client.js";
import { PooledClient } from "./pg-client.js";
import { openEmbeddedDirectory, type EmbeddedDirectory } from "./embedded.js";
import { createFromImage, pgliteRunner } from "./embedded-files.js";
import { applyMigrations, listPendingMigrations, type MigrationReport, type SqlRunner } from "./migrator.js";
import { createStatementNames, pgliteStatements, pgliteTransactions, pgStatements, poolTransactions, sendStatement } from "./raw-sql.js";
import type { RawSql } from "./raw-sql.js";
import type { Door, PlainTransaction, TransactionOptions, Transactions, UnscopedDb, UnscopedReason } from "./doors.js";
import { givePlainAccess, plainOf, type PlainSql } from "./plain-access.js";
import { createTenantClients } from "./tenant-clients.js";
import type { ModeScope, TenantDb } from "./tenant-scope.js";

export type DatabaseKind = "postgres" | "embedded";

export interface DatabaseOptions {
  /** PostgreSQL connection string; absent means the embedded database. */
  url?: string | undefined;
  /** Directory of the embedded database; absent with no url means in memory (tests). */
  dataDir?: string | undefined;
  /** An in-memory embedded database starts as a copy of this one (`createEmbeddedImage`) instead of empty. */
  embeddedImage?: EmbeddedImage | undefined;
  /** Maximum PostgreSQL connections of this process. */
  poolMax?: number;
  /** Most statement texts prepared on each PostgreSQL connection (createStatementNames); 0: none. */
  preparedStatements?: number | undefined;
  /**
   * Longest wait for a PostgreSQL connection, new or from the pool (DATABASE_CONNECT_TIMEOUT_MS); 0: no
   * limit. A request waits no longer while the database is away, and answers 503.
   */
  connectTimeoutMs?: number | undefined;
  /**
   * Longest wait for one statement's answer (DATABASE_STATEMENT_TIMEOUT_MS), measured by the service, so
   * it also ends the wait on a database that went silent; 0: no limit. Migrations are not bounded.
   */
  statementTimeoutMs?: number | undefined;
}

/**
 * One database, reached through three doors (docs/tenants.md#data-scoping): a tenant's client, every
 * tenant's with a stated reason, and transactions over either. Plain SQL is reached by the repositories
 * through the doors they are handed (plain-access.ts), never from here.
 */
export interface Database {
  kind: DatabaseKind;
  /**
   * One tenant's view of the data: the tenant is added to every query of tenant-owned rows, and a query
   * naming another tenant is refused. Built once per tenant. Given a mode, one tenant's view of one
   * mode's money (docs/test-mode.md): `livemode` is added likewise to every query of the models that
   * carry it, so a server request of a test key cannot read or write live rows, nor one of a live key test rows.
   */
  forTenant(tenantId: string, mode?: ModeScope): TenantDb;
  /**
   * Every tenant's rows, unchecked: only for code that crosses tenants by design, which says why
   * (`UnscopedReason`). The same client whatever the reason.
   */
  unscoped(reason: UnscopedReason): UnscopedDb;
  /** The one way to run a transaction, Prisma's or one of plain SQL, over a door (`Transactions`). */
  transaction: Transactions;
  migrate(): Promise<MigrationReport>;
  pendingMigrations(): Promise<string[]>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  return options.url ? openPostgres(options.url, options) : openEmbedded(options.dataDir, options.embeddedImage);
}

/** A migrated embedded database, dumped: what `embeddedImage` copies. */
export type EmbeddedImage = Blob;

/**
 * An empty embedded database with every migration applied, as an image to open many from. Creating an
 * embedded database runs PostgreSQL's initdb in WebAssembly (about 2.5 s); loading an image takes a
 * third of that, which is what a test suite opening a database per file spends most of its time on.
 */
export async function createEmbeddedImage(): Promise<EmbeddedImage> {
  const pglite = new PGlite({ postgresqlconf: inMemoryConf });
  try {
    await applyMigrations(pgliteRunner(pglite));
    return await pglite.dumpDataDir("none");
  } finally {
    await pglite.close();
  }
}

/** Defaults of DATABASE_CONNECT_TIMEOUT_MS and DATABASE_STATEMENT_TIMEOUT_MS (docs/configuration.md). */
export const databaseTimeoutDefaults = { connectTimeoutMs: 5_000, statementTimeoutMs: 30_000 } as const;

async function openPostgres(url: string, options: DatabaseOptions): Promise<Database> {
  const connectTimeoutMs = options.connectTimeoutMs ?? databaseTimeoutDefaults.connectTimeoutMs;
  const statementTimeoutMs = options.statementTimeoutMs ?? databaseTimeoutDefaults.statementTimeoutMs;
  // The pool reconnects by itself: a connection that failed is discarded, the next request opens a new
  // one (pg-client.ts). keepAlive finds out idle connections a restart or a fault left behind.
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolMax ?? 10,
    Client: PooledClient,
    connectionTimeoutMillis: connectTimeoutMs,
    ...(statementTimeoutMs > 0 ? { query_timeout: statementTimeoutMs } : {}),
    keepAlive: true,
  });
  // An idle client's error (server restart) must not crash the process; the pool replaces it.
  pool.on("error", () => undefined);
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  const nameOf = createStatementNames(options.preparedStatements);
  const sql: SqlRunner = {
    query: async (text, params) => (await sendStatement(pool, nameOf, text, params)).rows,
    exec: async (text) => void (await pool.query(text)),
    withLock: async (fn) => {
      // Its own connection, outside the pool: a migration may run longer than any statement time-out.
      const client = new PooledClient({ connectionString: url, connectionTimeoutMillis: connectTimeoutMs });
      await client.connect();
      try {
        // Several instances starting at once: only one applies migrations.
        await client.query("SELECT pg_advisory_lock(727361)");
        return await fn({
          query: async (text, params) => (await client.query(text, params as unknown[])).rows,
          exec: async (text) => void (await client.query(text)),
          withLock: (inner) => inner(sql),
        });
      } finally {
        await client.query("SELECT pg_advisory_unlock(727361)").catch(() => undefined);
        await client.end().catch(() => undefined);
      }
    },
  };
  const plain: PlainSql = { sql, autocommit: pgStatements(pool, nameOf), transactions: poolTransactions(pool, nameOf) };
  return {
    kind: "postgres",
    ...doorsOf(prisma, plain),
    migrate: () => applyMigrations(sql),
    pendingMigrations: () => listPendingMigrations(sql),
    ping: async () => void (await pool.query("SELECT 1")),
    close: async () => {
      await prisma.$disconnect();
      await pool.end();
    },
  };
}

/**
 * An in-memory database's files are already in memory: PostgreSQL's 128 MB of shared buffers would only
 * cache them twice, and zeroing them is half of every start (a test suite opens one per file).
 */
const inMemoryConf = ["shared_buffers = 16MB"];

async function openEmbedded(dataDir: string | undefined, image: EmbeddedImage | undefined): Promise<Database> {
  let directory: EmbeddedDirectory | undefined;
  if (dataDir) {
    directory = await openEmbeddedDirectory(dataDir);
    await createFromImage(directory.pgdataPath).catch(async (error: unknown) => {
      await directory?.release();
      throw error;
    });
  }
  const pglite = directory
    ? new PGlite({ dataDir: directory.pgdataPath })
    : new PGlite({ ...(image ? { loadDataDir: image } : {}), postgresqlconf: inMemoryConf });
  await pglite.waitReady;
  const prisma = new PrismaClient({ adapter: new PrismaPGlite(pglite) });
  const sql = pgliteRunner(pglite);
  const plain: PlainSql = { sql, autocommit: pgliteStatements(pglite), transactions: pgliteTransactions(pglite) };
  return {
    kind: "embedded",
    ...doorsOf(prisma, plain),
    migrate: () => applyMigrations(sql),
    pendingMigrations: () => listPendingMigrations(sql),
    ping: async () => void (await pglite.query("SELECT 1")),
    close: async () => {
      await prisma.$disconnect();
      await pglite.close();
      await directory?.release();
    },
  };
}

function doorsOf(prisma: PrismaClient, plain: PlainSql): Pick<Database, "forTenant" | "unscoped" | "transaction"> {
  const tenants = createTenantClients(prisma, undefined, plain);
  const unscoped: UnscopedDb = givePlainAccess(prisma, plain);
  return {
    forTenant: (tenantId, mode) => tenants.forTenant(tenantId, mode),
    unscoped: () => unscoped,
    transaction: runTransaction as Transactions,
  };
}

/** `Transactions`: Prisma's interactive transaction on the door's client, or plain SQL's (`PlainTransaction`). */
function runTransaction<T>(door: Door, second: PlainTransaction | ((tx: never) => Promise<T>), third?: unknown): Promise<T> {
  if (typeof second !== "string") {
    const client = door as unknown as PrismaClient;
    return client.$transaction(second as (tx: unknown) => Promise<T>, third as TransactionOptions | undefined);
  }
  const fn = third as (tx: RawSql) => Promise<T>;
  const plain = plainOf(door);
  return second === "plain" ? plain.transactions(fn) : fn(plain.autocommit);
}
