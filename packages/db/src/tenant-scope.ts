/**
 * The tenant-scoped client (docs/tenants.md#data-scoping): one tenant's view of the database, so a
 * query of tenant-owned rows cannot be written without the tenant. A Prisma query extension adds
 * the tenant to the `where` of every read, update and delete and to the `data` of every create, and
 * refuses a query that names another tenant. Everything crossing tenants uses the plainly named
 * `Database.unscoped` instead.
 */
import { PrismaClient } from "./generated/prisma/client.js";

/** Models with a `tenant_id` column of their own. */
const tenantOwned = new Set([
  "User",
  "Session",
  "OneTimeToken",
  "MailOutbox",
  "Address",
  "Payment",
  "Payout",
  "ApiKey",
  "PaymentIntent",
  "WebhookEndpoint",
  "WebhookEvent",
  "WebhookDelivery",
  "WebhookAttempt",
  "Refund",
  "PaymentReversal",
  "PhoneCode",
  "SmsOutbox",
  "SecurityEvent",
  "DarajaRequest",
  "PullRegistration",
  "UserIdentity",
  "OidcNonce",
  "Passkey",
  "PasskeyChallenge",
]);

/**
 * Models with a `livemode` column (docs/test-mode.md): a client scoped to a mode as well reads and
 * writes only that mode's rows, as it does its tenant's.
 */
const modeOwned = new Set([
  "Payment",
  "Payout",
  "PaymentIntent",
  "WebhookEndpoint",
  "WebhookEvent",
  "Refund",
  "DarajaRequest",
]);

/** Models without `tenant_id`, scoped through the relation to their tenant-owned parent. */
const scopedThroughParent: Record<string, string> = { RefreshToken: "session", RecoveryCode: "user" };

/** Every relation field, per model: the scoped client refuses nested writes through them. */
const relationFields: Record<string, readonly string[]> = {
  Tenant: ["users", "sessions", "addresses", "payments", "payouts", "apiKeys", "paymentIntents", "webhookEndpoints", "webhookEvents"],
  User: ["tenant", "sessions", "oneTimeTokens", "recoveryCodes", "addresses", "payments", "payouts", "identities", "passkeys"],
  Session: ["tenant", "user", "refreshTokens"],
  RefreshToken: ["session"],
  OneTimeToken: ["user"],
  RecoveryCode: ["user"],
  Address: ["tenant", "user"],
  Payment: ["tenant", "user", "intent", "refunds", "reversals"],
  Payout: ["tenant", "user"],
  MailOutbox: [],
  ApiKey: ["tenant"],
  PaymentIntent: ["tenant", "payments"],
  WebhookEndpoint: ["tenant", "deliveries"],
  WebhookEvent: ["tenant", "deliveries", "attempts"],
  WebhookDelivery: ["event", "endpoint"],
  WebhookAttempt: ["event"],
  Refund: ["payment"],
  PaymentReversal: ["payment"],
  PhoneCode: [],
  SmsOutbox: [],
  SecurityEvent: [],
  DarajaRequest: [],
  PullRegistration: [],
  UserIdentity: ["user"],
  OidcNonce: [],
  Passkey: ["user"],
  PasskeyChallenge: [],
};

/**
 * How each model is reached through a scoped client. SigningKey and DarajaCallback are not tenant data
 * (the key ring is shared, callbacks are matched to a tenant by the payment they name): refused.
 */
export const tenantScopeOfModel = { tenantOwned, modeOwned, scopedThroughParent, relationFields } as const;

/** Which money a mode-scoped client sees: live (`true`) or test mode's (`false`). */
export interface ModeScope {
  livemode: boolean;
}

export class TenantScopeViolation extends Error {
  override name = "TenantScopeViolation";
}

const whereOperations = new Set([
  "findUnique",
  "findUniqueOrThrow",
  "findFirst",
  "findFirstOrThrow",
  "findMany",
  "count",
  "aggregate",
  "groupBy",
  "update",
  "updateMany",
  "updateManyAndReturn",
  "delete",
  "deleteMany",
  "upsert",
]);
const createOperations = new Set(["create", "createMany", "createManyAndReturn"]);
const dataOperations = new Set(["update", "updateMany", "updateManyAndReturn"]);

type Args = Record<string, unknown>;

/**
 * Builds the scoped client of one tenant (callers cache it: see createTenantClients); given a mode, of
 * that tenant's rows of that mode too, wherever a model has one (`modeOwned`).
 */
export function scopeToTenant(prisma: PrismaClient, tenantId: string, mode?: ModeScope) {
  if (!tenantId) throw new TenantScopeViolation("A tenant-scoped client needs a tenant id.");
  return prisma.$extends({
    name: mode ? `tenant:${tenantId}:${mode.livemode ? "live" : "test"}` : `tenant:${tenantId}`,
    query: {
      $allModels: {
        $allOperations({ model, operation, args, query }) {
          const scoped = scopeArgs(tenantId, model, operation, (args ?? {}) as Args);
          return query((mode && modeOwned.has(model) ? scopeMode(mode.livemode, model, operation, scoped) : scoped) as typeof args);
        },
      },
    },
  });
}

type ScopedClient = ReturnType<typeof scopeToTenant>;
type ScopedTransaction = Parameters<Parameters<ScopedClient["$transaction"]>[0]>[0];

/**
 * One tenant's client (an interface, so types that mention it name it rather than spell it out). Its
 * transactions are opened by `Database.transaction`, not by the client.
 */
export interface TenantDb extends Omit<ScopedClient, "$transaction"> {
  /** Type only (see UnscopedDb's). */
  readonly $door?: "tenant";
}

/** The transaction client of a scoped client's interactive transaction: scoped like it, and no door. */
export interface TenantTx extends Omit<ScopedTransaction, "$transaction"> {}

function scopeArgs(tenantId: string, model: string, operation: string, args: Args): Args {
  refuseNestedWrites(model, operation, args);
  if (tenantOwned.has(model)) return scopeOwned(tenantId, model, operation, args);
  const parent = scopedThroughParent[model];
  if (parent) return whereOperations.has(operation) ? { ...args, where: withParentScope(args.where as Args | undefined, parent, tenantId) } : args;
  if (model === "Tenant") return scopeTenantRow(tenantId, operation, args);
  throw new TenantScopeViolation(`${model} is not tenant data: use Database.unscoped for it.`);
}

function scopeOwned(tenantId: string, model: string, operation: string, args: Args): Args {
  const scoped: Args = { ...args };
  if (whereOperations.has(operation)) scoped.where = withTenant(args.where as Args | undefined, tenantId, model);
  if (createOperations.has(operation)) scoped.data = mapRows(args.data, (row) => withTenantData(row, tenantId, model));
  if (dataOperations.has(operation)) refuseForeignData(args.data as Args | undefined, tenantId, model);
  if (operation === "upsert") {
    scoped.create = withTenantData(args.create as Args, tenantId, model);
    refuseForeignData(args.update as Args | undefined, tenantId, model);
  }
  return scoped;
}

function scopeMode(livemode: boolean, model: string, operation: string, args: Args): Args {
  const scoped: Args = { ...args };
  const check = (row: Args | undefined, part: "where" | "data") => {
    if (row && "livemode" in row && row.livemode !== livemode) throw otherMode(model, part);
  };
  if (whereOperations.has(operation)) {
    check(args.where as Args | undefined, "where");
    scoped.where = { ...((args.where as Args | undefined) ?? {}), livemode };
  }
  if (createOperations.has(operation)) {
    scoped.data = mapRows(args.data, (row) => {
      check(row, "data");
      return { ...row, livemode };
    });
  }
  if (dataOperations.has(operation)) check(args.data as Args | undefined, "data");
  if (operation === "upsert") {
    check(args.create as Args, "data");
    check(args.update as Args | undefined, "data");
    scoped.create = { ...(args.create as Args), livemode };
  }
  return scoped;
}

function otherMode(model: string, part: "where" | "data"): TenantScopeViolation {
  return new TenantScopeViolation(`${model}: the ${part} names another mode (livemode) than this client's.`);
}

function withTenant(where: Args | undefined, tenantId: string, model: string): Args {
  const given = where ?? {};
  if ("tenantId" in given && given.tenantId !== tenantId) throw foreign(model, "where");
  // Compound unique keys that include the tenant (tenantId_email, tenantId_id, …) must name it too.
  for (const [key, value] of Object.entries(given)) {
    if (key.startsWith("tenantId_") && isRecord(value) && value.tenantId !== tenantId) throw foreign(model, "where");
  }
  return { ...given, tenantId };
}

function withTenantData(row: Args, tenantId: string, model: string): Args {
  if ("tenantId" in row && row.tenantId !== tenantId) throw foreign(model, "data");
  return { ...row, tenantId };
}

function refuseForeignData(data: Args | undefined, tenantId: string, model: string): void {
  if (data && "tenantId" in data && data.tenantId !== tenantId) throw foreign(model, "data");
}

function withParentScope(where: Args | undefined, parent: string, tenantId: string): Args {
  const given = where ?? {};
  const and = given.AND === undefined ? [] : Array.isArray(given.AND) ? given.AND : [given.AND];
  return { ...given, AND: [...and, { [parent]: { tenantId } }] };
}

/** Through a scoped client the tenants table holds one row: the tenant's own, read or updated. */
function scopeTenantRow(tenantId: string, operation: string, args: Args): Args {
  if (!whereOperations.has(operation) || operation === "upsert" || operation.startsWith("delete")) {
    throw new TenantScopeViolation(`Tenant.${operation} is not a tenant's own operation: use Database.unscoped for it.`);
  }
  const where = (args.where ?? {}) as Args;
  if ("id" in where && where.id !== tenantId) throw foreign("Tenant", "where");
  refuseForeignData(args.data as Args | undefined, tenantId, "Tenant");
  return { ...args, where: { ...where, id: tenantId } };
}

/** Nested writes would reach other models past this extension, which only sees the top-level query. */
function refuseNestedWrites(model: string, operation: string, args: Args): void {
  const relations = relationFields[model] ?? [];
  const rows = [...listRows(args.data), ...(operation === "upsert" ? [args.create, args.update] : [])];
  for (const row of rows) {
    if (!isRecord(row)) continue;
    const nested = relations.find((field) => field in row);
    if (nested) {
      throw new TenantScopeViolation(`${model}.${operation} writes through the relation "${nested}": write each model with its own query (foreign keys as plain ids).`);
    }
  }
}

function mapRows(data: unknown, fn: (row: Args) => Args): unknown {
  return Array.isArray(data) ? data.map((row) => fn(row as Args)) : fn((data ?? {}) as Args);
}

function listRows(data: unknown): unknown[] {
  return Array.isArray(data) ? data : data === undefined ? [] : [data];
}

function isRecord(value: unknown): value is Args {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function foreign(model: string, part: "where" | "data"): TenantScopeViolation {
  return new TenantScopeViolation(`${model}: the ${part} names another tenant than this client's.`);
}
