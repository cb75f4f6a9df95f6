/**
 * What a door (a tenant's client, the unscoped one) carries for the repositories of plain SQL, out of
 * the domain's sight: this module is not exported by the package's index. The hot paths keep their
 * plain statements (the live-session reads, a sign-in's user, a callback's storing: one statement on
 * the pool, prepared by name) while the domain only ever holds the door.
 */
import type { SqlRunner } from "./migrator.js";
import { TenantScopeViolation } from "./tenant-scope.js";
import type { RawSql, RawTransactions } from "./raw-sql.js";

/** The plain SQL of one database, the same for all its doors. */
export interface PlainSql {
  /** Statements on the pool (each its own transaction), rows as the driver reads them; the migrator's too. */
  sql: SqlRunner;
  /** The same statements behind `RawSql`'s tagged templates (`Database.transaction(door, "autocommit", …)`). */
  autocommit: RawSql;
  /** `Database.transaction(door, "plain", …)`. */
  transactions: RawTransactions;
}

interface PlainAccess extends PlainSql {
  /** The door it was given to: a Prisma transaction client sees its client's properties, and must not pass for it. */
  owner: object;
  /** The tenant of a tenant's client; undefined on the unscoped one. */
  tenantId: string | undefined;
}

const plainAccess = Symbol("mteja.plainAccess");

type WithAccess = { [plainAccess]?: PlainAccess };

/** Gives `door` the database's plain SQL (once, as the door is built). */
export function givePlainAccess<Door extends object>(door: Door, plain: PlainSql, tenantId?: string): Door {
  const access: PlainAccess = { ...plain, owner: door, tenantId };
  Object.defineProperty(door, plainAccess, { value: access, enumerable: false });
  return door;
}

/** The plain SQL behind a door; throws for anything else (a transaction client, a client built without a database). */
export function plainOf(door: object): PlainSql {
  const access = (door as WithAccess)[plainAccess];
  if (access === undefined || access.owner !== door) {
    throw new TypeError("Not a door of a Database: pass what forTenant or unscoped gave.");
  }
  return access;
}

/**
 * The plain SQL behind a door for a statement that names `tenantId` itself: on a tenant's client, only
 * that tenant's (the statement is refused, as the scoped client refuses a query naming another tenant).
 */
export function plainFor(door: object, tenantId: string): PlainSql {
  const access = plainOf(door) as PlainAccess;
  if (access.tenantId !== undefined && access.tenantId !== tenantId) {
    throw new TenantScopeViolation("A statement names another tenant than its client's.");
  }
  return access;
}
