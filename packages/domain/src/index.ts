export { appRouter, type AppRouter } from "./router.js";
export { createCallerFactory } from "./trpc.js";
/** The procedure builders, for adapters that test their mount on a router of their own. */
export { adminApiProcedure, createTRPCRouter, publicProcedure, refreshCookieProcedure } from "./trpc.js";
export { operationMetaOf, operationMetas, type Credential, type Deprecation, type OperationMeta, type RestRoute, type SignInStep, type StepUp } from "./shared/operation-meta.js";
export type { FileAnswer } from "./shared/operation-meta.js";
export { unobservedEvents, type CaptchaOutcome, type DomainEvents, type PasswordBreachOutcome, type SignInReport } from "./shared/events.js";
export type { Context, Deps, Logger, RequestInfo, CookieOptions } from "./context.js";
/** What each area needs from the composition root; Deps satisfies them all. */
export type { AuthPorts } from "./auth/ports.js";
export type { PaymentPorts } from "./payments/shared/ports.js";
export type { WebhookPorts } from "./webhooks/ports.js";
export type { ReportPorts, ReportSettings } from "./reports/ports.js";
export type { DomainConfig } from "./shared/config.js";
export { tokenDefaults } from "./shared/config.js";
export { systemClock, cryptoRandom, type Clock, type Random } from "./shared/ports.js";
export { DomainError, toErrorEnvelope, errorStatus, type ErrorCode, type ErrorEnvelope } from "./shared/errors.js";
export { serviceUnavailable, toTrpcError } from "./shared/errors.js";
export { answerLocale } from "./shared/i18n/answer-locale.js";
export { createAccessTokens, type AccessTokens, type AccessClaims } from "./auth/tokens/access-tokens.js";
export { createDataCipher, type DataCipher } from "./shared/data-cipher.js";
export { createRefreshSuccessor, type RefreshSuccessor } from "./auth/sessions/refresh-successor.js";
export { createPasswordHasher, type PasswordHasher, type PasswordHashing, type HashTurn } from "./auth/passwords.js";
export { equalsConstantTime } from "./shared/secrets.js";
export { unlimited, type Limiter, type LimitRule, type LimitDecision } from "./shared/limiter.js";
export { passwordRangesOff, type PasswordRanges } from "./auth/breached-passwords/ports.js";
export { captchaOff, type CaptchaVerdict, type CaptchaVerifier } from "./auth/captcha/ports.js";
export { CAPTCHA_FLOWS, type CaptchaFlow } from "./shared/tenant-settings.js";
export {
  configuredKeySet,
  loadStoredKeySet,
  rotateSigningKey,
  retiredKeyMarginSeconds,
  type KeySet,
  type SigningKeyPair,
  type SigningKeyRotation,
  type VerificationKey,
} from "./auth/tokens/signing-keys.js";
export { createSigningKeyRing, type SigningKeyRing } from "./auth/tokens/signing-key-ring.js";
export { corsOriginsOf, createTenantDirectory, ensureDefaultTenant, normaliseOrigin, type Tenant, type TenantDirectory } from "./shared/tenant.js";
export { createDarajaAccounts, type DarajaAccount, type DarajaAccounts, type PlatformDarajaAccount } from "./tenants/daraja-accounts.js";
export { sealStoredMomoSecrets } from "./tenants/daraja-secrets.js";
export * from "./payments/index.js";
export { webhookEventTypes, type WebhookEventType } from "./webhooks/event-types.js";
export { webhookEventCatalogue, type WebhookEventEntry } from "./event-catalogue.js";
export { recordEvent, type NewEvent } from "./webhooks/events.js";
export {
  createDeliveryLeases,
  deliveriesPerEndpoint,
  startDueDeliveries,
  type DeliveryOptions,
  type DeliveryResult,
  type WebhookPoster,
} from "./webhooks/delivery-worker.js";
export { defaultWebhookRetrySchedule } from "./webhooks/retry-schedule.js";
export { retentionRulesFor, type RetentionRule, type RetentionKind } from "./retention/rules.js";
export { pruneExpiredRows, type PruneOptions, type PruneReport } from "./retention/prune.js";
export type { WebhookDeps } from "./webhooks/webhook-deps.js";
export { paymentObject, type PaymentObject } from "./payments/shared/payment-object.js";
export { receiveDeliveryReport, type DeliveryReportReply } from "./sms/delivery-reports.js";
export { recordSecurityEvent, type SecurityEventInput } from "./security-events/record.js";
export { SECURITY_EVENT_TYPES, type SecurityEventDetails, type SecurityEventType } from "./security-events/event-types.js";
/** The daily report, for the operator's command (the same rows as GET /api/v1/reports/daily). */
export { dailyReport } from "./reports/daily-report.js";
export { dailyReportInput, type DailyReportInput } from "./reports/schemas.js";
export type { StreamedFile } from "./shared/streamed-file.js";
export {
  GoogleRefusal,
  type AuthorizationRequest,
  type AuthorizationResponse,
  type GoogleClient,
  type GoogleIdentity,
  type GoogleIdentityProvider,
  type IdTokenCheck,
} from "./auth/google/identity-provider.js";
