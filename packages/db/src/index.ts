export { openDatabase, type Database, type DatabaseKind, type DatabaseOptions } from "./database.js";
export { applyMigrations, listPendingMigrations, readMigrations, defaultMigrationsDir, type MigrationReport, type SqlRunner } from "./migrator.js";
export { changedRow, type RowChanges } from "./model-rows.js";
export { isUniqueViolation, type RawSql, type RawTransactions, type SqlQuery } from "./raw-sql.js";
export type { AnyClient } from "./repositories/clients.js";
export { scopeToTenant, TenantScopeViolation, tenantScopeOfModel, type TenantDb, type TenantTx } from "./tenant-scope.js";
export { createTenantClients, type TenantClients } from "./tenant-clients.js";
export { PrismaClient, Prisma } from "./generated/prisma/client.js";
export type * from "./generated/prisma/models.js";
export { findSignInUser, type SignInUser } from "./repositories/sign-in-users.js";
export * as callbacks from "./repositories/callbacks.js";
export * as intents from "./repositories/intents.js";
export * as payments from "./repositories/payments.js";
export * as payouts from "./repositories/payouts.js";
export * as reversals from "./repositories/reversals.js";
export type { EventRow } from "./repositories/webhook-event-writes.js";
export { findSession, findSessionUser, markSessionUsed, type SessionCondition, type SessionKey, type SessionRow, type SessionUserRow } from "./repositories/session-users.js";
export { createScratchDatabase, isPostgresReachable, type ScratchDatabase } from "./scratch.js";
export * as addresses from "./repositories/addresses.js";
export * as dataRights from "./repositories/data-rights.js";
export * as outboxes from "./repositories/outboxes.js";
export * as retention from "./repositories/retention.js";
export * as tenants from "./repositories/tenants.js";
export * as userPreferences from "./repositories/user-preferences.js";
export * as userRoles from "./repositories/user-roles.js";
export * as webhooks from "./repositories/webhooks.js";
// The auth area's names for two outbox writes, until its callers move to `outboxes.` (issue 29, repos-identity).
export { enqueueMail, enqueueText as enqueueSms } from "./repositories/outboxes.js";
export {
  listenForPaymentStatus,
  listenerName,
  parsePaymentStatusNotice,
  paymentStatusChannel,
  type PaymentStatusListener,
  type PaymentStatusListenerEvents,
  type PaymentStatusNotice,
} from "./payment-status-notices.js";
export * as leases from "./repositories/leases.js";
