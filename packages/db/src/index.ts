export { openDatabase, type Database, type DatabaseKind, type DatabaseOptions } from "./database.js";
export { applyMigrations, listPendingMigrations, readMigrations, defaultMigrationsDir, type MigrationReport, type SqlRunner } from "./migrator.js";
export {
  changedRow,
  insertRow,
  intentsTable,
  paymentsTable,
  payoutsTable,
  reversalsTable,
  updateRow,
  updateRowIf,
  type ModelTable,
  type RowChanges,
} from "./model-rows.js";
export { isUniqueViolation, type RawSql, type RawTransactions, type SqlQuery } from "./raw-sql.js";
export type { AnyClient } from "./repositories/clients.js";
export { scopeToTenant, TenantScopeViolation, tenantScopeOfModel, type TenantDb, type TenantTx } from "./tenant-scope.js";
export { createTenantClients, type TenantClients } from "./tenant-clients.js";
export { PrismaClient, Prisma } from "./generated/prisma/client.js";
export type * from "./generated/prisma/models.js";
export { insertStoredCallback, type StoredCallbackInsert } from "./repositories/momo-callbacks.js";
export { createScratchDatabase, isPostgresReachable, type ScratchDatabase } from "./scratch.js";
export * as addresses from "./repositories/addresses.js";
export * as apiKeys from "./repositories/api-keys.js";
export * as dataRights from "./repositories/data-rights.js";
export * as oneTimeTokens from "./repositories/one-time-tokens.js";
export * as outboxes from "./repositories/outboxes.js";
export * as phoneCodes from "./repositories/phone-codes.js";
export * as recoveryCodes from "./repositories/recovery-codes.js";
export * as retention from "./repositories/retention.js";
export * as securityEvents from "./repositories/security-events.js";
export * as sessions from "./repositories/sessions.js";
export * as signingKeys from "./repositories/signing-keys.js";
export * as tenants from "./repositories/tenants.js";
export * as users from "./repositories/users.js";
export * as webhooks from "./repositories/webhooks.js";
