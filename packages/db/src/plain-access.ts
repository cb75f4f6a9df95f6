/**
 * What a door (a tenant's client, the unscoped one) carries for the repositories of plain SQL, out of
 * the domain's sight: this module is not exported by the package's index. The hot paths keep their
 * plain statements (the live-session reads, a sign-in's user, a callback's storing: one statement on
 * the pool, prepared by name) while the domain only ever holds the door.
 */
import type { SqlRunner } from "./migrator.js";
import { TenantScopeViolation, type ModeScope } from "./tenant-scope.js";
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
  /** A tenant's client's plain SQL with its tenant and scope (`tenantPlainOf`); undefined on the unscoped door. */
  tenant: TenantPlain | undefined;
}

const plainAccess = Symbol("mteja.plainAccess");

type WithAccess = { [plainAccess]?: PlainAccess };

/** Gives `door` the database's plain SQL (once, as the door is built). */
export function givePlainAccess<Door extends object>(door: Door, plain: PlainSql, tenantId?: string, mode?: ModeScope): Door {
  const access: PlainAccess = { ...plain, owner: door, tenant: tenantId === undefined ? undefined : tenantPlain(plain, tenantId, mode) };
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
  if (access.tenant !== undefined && access.tenant.tenantId !== tenantId) {
    throw new TenantScopeViolation("A statement names another tenant than its client's.");
  }
  return access;
}

/** A tenant's client's plain SQL with the scope its statements must carry, as the scoped client adds it. */
export interface TenantPlain extends PlainSql {
  tenantId: string;
  /** `livemode` for the models that carry one (docs/test-mode.md); null: a client of both modes. */
  livemode: boolean | null;
  /**
   * The condition the statement must carry, on `$1` and `$2` (`scopeValues`): the tenant, and the mode
   * unless the client is of both. A text of its own for each, not `$2 IS NULL OR livemode = $2`: a
   * prepared statement's generic plan cannot use the mode in an index behind the OR.
   */
  scope: string;
  /** The values of `scope`'s `$1` and `$2`. */
  scopeValues: [string, boolean | null];
}

/** A tenant's client's plain SQL and scope: made once, as its door is built (every hot statement asks for it). */
function tenantPlain(plain: PlainSql, tenantId: string, mode: ModeScope | undefined): TenantPlain {
  const livemode = mode?.livemode ?? null;
  const scope = livemode === null ? "tenant_id = $1 AND $2::boolean IS NULL" : "tenant_id = $1 AND livemode = $2::boolean";
  return { ...plain, tenantId, livemode, scope, scopeValues: [tenantId, livemode] };
}

/**
 * The plain SQL behind a tenant's client, with its tenant and mode, for a statement on a table of
 * tenant-owned rows with a `livemode` column: it must say `tenant_id = <tenantId>` and, unless
 * `livemode` is null, `livemode = <livemode>`. Refused on the unscoped door, which has no scope to carry.
 */
export function tenantPlainOf(door: object): TenantPlain {
  const { tenant } = plainOf(door) as PlainAccess;
  if (tenant === undefined) throw new TenantScopeViolation("A tenant's statement was given the unscoped door.");
  return tenant;
}

/**
 * `tenantPlainOf` for a statement that creates `row`: refused, as the scoped client refuses such a create,
 * when the row names another tenant, or (on a client of one mode) another mode.
 */
export function tenantPlainFor(door: object, row: { tenantId: string; livemode?: boolean }): TenantPlain {
  const plain = tenantPlainOf(door);
  if (row.tenantId !== plain.tenantId) throw new TenantScopeViolation("A created row names another tenant than its client's.");
  if (row.livemode !== undefined && plain.livemode !== null && row.livemode !== plain.livemode) {
    throw new TenantScopeViolation("A created row names another mode (livemode) than its client's.");
  }
  return plain;
}
