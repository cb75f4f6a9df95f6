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
export {
  createMailOutboxStore,
  enqueueMail,
  type ClaimedOutboxMail,
  type MailOutboxStore,
  type MailOutboxStoreOptions,
  type OutboxInsert,
} from "./repositories/mail-outbox.js";
export { findSignInUser, type SignInUser } from "./repositories/sign-in-users.js";
export { insertStoredCallback, type StoredCallbackInsert } from "./repositories/momo-callbacks.js";
export { findSession, findSessionUser, markSessionUsed, type SessionCondition, type SessionKey, type SessionRow, type SessionUserRow } from "./repositories/session-users.js";
export { createScratchDatabase, isPostgresReachable, type ScratchDatabase } from "./scratch.js";
export { createSmsOutboxStore, enqueueSms, type ClaimedOutboxText, type SmsInsert, type SmsOutboxStore } from "./repositories/sms-outbox.js";
export {
  claimDueWebhookDeliveries,
  recordWebhookAttempt,
  type ClaimedWebhookDelivery,
  type WebhookAttemptRecord,
  type WebhookClaim,
} from "./repositories/webhook-deliveries.js";
export * as simulatedDaraja from "./repositories/simulated-daraja.js";
