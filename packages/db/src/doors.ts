/**
 * The three doors of a `Database` (docs/tenants.md#data-scoping): a tenant's client (`forTenant`), the
 * client of every tenant, opened with a stated reason (`unscoped`), and the one way to run a
 * transaction over either (`transaction`). The types here are what the domain and apps/api see; what
 * the repositories of plain SQL reach through a door is `plain-access.ts`'s, which the package's index
 * does not export.
 */
import type { Prisma, PrismaClient } from "./generated/prisma/client.js";
import type { RawSql } from "./raw-sql.js";
import type { TenantDb, TenantTx } from "./tenant-scope.js";

/**
 * Why code reaches every tenant's rows, stated at each use (`db.unscoped("worker")`): a closed list, so
 * a new kind of crossing is a new line here, in review. packages/domain/test/database-doors.test.ts
 * checks where each reason is used.
 */
export type UnscopedReason =
  /** The operator's admin API (ADMIN_API_KEY): tenants created, listed and changed; the audit of every tenant. */
  | "admin-api"
  /** The tenants themselves: the tenant directory finds a tenant by id and lists the active ones. */
  | "tenant-directory"
  /** What the service does once as it starts: the default tenant, sealing stored Daraja secrets, the C2B warning. */
  | "start-up"
  /** The operator's commands (`mteja doctor`), run beside the service. */
  | "operator-cli"
  /** Rows of no tenant: the signing keys every tenant's tokens share, the simulated Daraja's records. */
  | "no-tenant-data"
  /** An API key names its tenant: it is looked up by its hash before the tenant is known. */
  | "api-key-lookup"
  /** A Daraja callback names no tenant: stored (momo_callbacks), matched by Daraja's ids, a C2B one by short code. */
  | "daraja-callback"
  /** An SMS delivery report names Africa's Talking's message id only. */
  | "sms-delivery-report"
  /**
   * Background work over every tenant's due rows, each then handled as its tenant's: the reconciler's
   * sweeps and their leases, intent expiry, webhook deliveries, the mail and SMS outboxes.
   */
  | "worker"
  /** The pruning job deletes expired rows of every tenant (and of none). */
  | "retention"
  /** A customer's erasure masks their phone in their payments' stored Daraja callbacks (no tenant's rows). */
  | "erasure"
  /** Figures over every tenant, for /metrics. */
  | "metrics"
  /** The development outbox pages (mails and texts of every tenant), never served in production. */
  | "dev-outbox"
  /** Tests set up and check rows directly; never in src (database-doors.test.ts). */
  | "test";

/**
 * Every tenant's rows, unchecked (`Database.unscoped`). Transactions are opened by `Database.transaction`,
 * not by the client.
 */
export interface UnscopedDb extends Omit<PrismaClient, "$transaction"> {
  /**
   * Which door this is, in the type only: `Transactions`' overloads tell the two doors apart by it at
   * once, instead of comparing Prisma's client types member by member (which TypeScript gives up on).
   */
  readonly $door?: "unscoped";
}

/** The transaction client of an unscoped transaction. */
export type UnscopedTx = Prisma.TransactionClient;

/** A door: what `forTenant` and `unscoped` give, handed to repositories and to `transaction`. */
export type Door = TenantDb | UnscopedDb;

/** Prisma's interactive transaction limits (the addresses' owner lock waits longer than the defaults). */
export interface TransactionOptions {
  maxWait?: number;
  timeout?: number;
}

/**
 * Transactions of plain SQL outside Prisma, for the hot write paths (a sign-in, a callback):
 * - `"plain"`: one transaction on one pooled connection, BEGIN … COMMIT, at a fifth of the CPU Prisma's
 *   interactive transaction costs per statement (docs/performance.md);
 * - `"autocommit"`: no BEGIN nor COMMIT, each statement its own transaction, for a write one statement
 *   guards and makes whole (a callback applied without locks, docs/mpesa.md#callbacks).
 * Plain SQL is not scoped, whichever door it is opened on: each statement names its tenant or its rows'
 * ids itself, as the repositories that take a `RawSql` do.
 */
export type PlainTransaction = "plain" | "autocommit";

/**
 * The one way to run a transaction (`Database.transaction`): Prisma's, over a tenant's client (the
 * transaction is scoped as the client is) or the unscoped one, committed when `fn` returns and rolled
 * back when it throws; or one of plain SQL (`PlainTransaction`).
 */
export interface Transactions {
  <T>(door: TenantDb, fn: (tx: TenantTx) => Promise<T>, options?: TransactionOptions): Promise<T>;
  <T>(door: UnscopedDb, fn: (tx: UnscopedTx) => Promise<T>, options?: TransactionOptions): Promise<T>;
  <T>(door: Door, kind: PlainTransaction, fn: (tx: RawSql) => Promise<T>): Promise<T>;
}
