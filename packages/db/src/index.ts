export { createEmbeddedImage, databaseTimeoutDefaults, openDatabase, type EmbeddedImage } from "./database.js";
export type { Database, DatabaseKind, DatabaseOptions } from "./database.js";
export type { Door, PlainTransaction, TransactionOptions, Transactions, UnscopedDb, UnscopedReason, UnscopedTx } from "./doors.js";
export { isDatabaseUnavailable } from "./unavailable.js";
export { readMigrations, defaultMigrationsDir, type MigrationReport } from "./migrator.js";
export { changedRow, type RowChanges } from "./model-rows.js";
export { isUniqueViolation, type RawSql, type SqlQuery } from "./raw-sql.js";
export type { AnyClient } from "./repositories/clients.js";
export type { SettleWrites } from "./repositories/settle-row.js";
export { scopeToTenant, TenantScopeViolation, tenantScopeOfModel, type ModeScope, type TenantDb, type TenantTx } from "./tenant-scope.js";
export { PrismaClient, Prisma } from "./generated/prisma/client.js";
export type * from "./generated/prisma/models.js";
export * as callbacks from "./repositories/callbacks.js";
export * as darajaRequests from "./repositories/daraja-requests.js";
export * as intents from "./repositories/intents.js";
export * as payments from "./repositories/payments.js";
export * as payouts from "./repositories/payouts.js";
export * as pullRegistrations from "./repositories/pull-registrations.js";
export * as refunds from "./repositories/refunds.js";
export * as settledMovements from "./repositories/settled-movements.js";
export type { EventRow } from "./repositories/webhook-event-writes.js";
export { createScratchDatabase, isPostgresReachable, type ScratchDatabase } from "./scratch.js";
export * as addresses from "./repositories/addresses.js";
export * as apiKeys from "./repositories/api-keys.js";
export * as dataRights from "./repositories/data-rights.js";
export * as identities from "./repositories/identities.js";
export * as oidcNonces from "./repositories/oidc-nonces.js";
export * as oneTimeTokens from "./repositories/one-time-tokens.js";
export * as outboxes from "./repositories/outboxes.js";
export * as passkeys from "./repositories/passkeys.js";
export * as phoneCodes from "./repositories/phone-codes.js";
export * as recoveryCodes from "./repositories/recovery-codes.js";
export * as retention from "./repositories/retention.js";
export * as securityEvents from "./repositories/security-events.js";
export * as sessions from "./repositories/sessions.js";
export * as signingKeys from "./repositories/signing-keys.js";
export * as tenants from "./repositories/tenants.js";
export * as users from "./repositories/users.js";
export * as webhooks from "./repositories/webhooks.js";
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
export * as simulatedDaraja from "./repositories/simulated-daraja.js";
