/** What the composition root (apps/api) uses of the payments area. */
export type { DarajaPorts, DarajaCallbackSettings } from "./shared/daraja-ports.js";
export { createPaymentEvents, type PaymentEvents, type PaymentStatusEvent } from "./shared/payment-events.js";
export {
  createStatusStreamSlots,
  MAX_OPEN_STATUS_STREAMS_PER_USER,
  type StatusStreamSlot,
  type StatusStreamSlots,
} from "./shared/status-stream-slots.js";
export { createReconciler, defaultReconcileOptions, type Reconciler, type ReconcileOptions, type ReconcileReport } from "./reconciliation.js";
export { createCallbackTokens, tenantCallbackUrl, type CallbackTokens } from "./shared/callback-tokens.js";
export { receiveCallback, type CallbackReply, type InboundCallback, type RejectedCallback } from "./callbacks.js";
export {
  callbackKindsWithoutMoney,
  callbackRoutes,
  callbackUrlSettings,
  darajaFlows,
  flowRouters,
  type CallbackKind,
  type CallbackUrlSetting,
  type RegisteredCallback,
} from "./flows.js";
export { ACCEPTED_ANSWER, CALLBACK_ROUTE_PREFIX, type CallbackDoc, type CallbackUrlRule } from "./shared/flow.js";
export { shopsOnSharedC2bToken } from "./c2b/c2b-tenant.js";
