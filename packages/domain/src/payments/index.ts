/** What the composition root (apps/api) uses of the payments area. */
export type { MomoDeps, MomoSettings } from "./kernel/momo-deps.js";
export { createPaymentEvents, type PaymentEvents, type PaymentStatusEvent } from "./kernel/payment-events.js";
export {
  createStatusStreamSlots,
  MAX_OPEN_STATUS_STREAMS_PER_USER,
  type StatusStreamSlot,
  type StatusStreamSlots,
} from "./kernel/status-stream-slots.js";
export { createReconciler, defaultReconcileOptions, type Reconciler, type ReconcileOptions, type ReconcileReport } from "./reconciliation.js";
export { createCallbackTokens, tenantCallbackUrl, type CallbackTokens } from "./kernel/callback-tokens.js";
export { receiveCallback, type CallbackKind, type CallbackReply, type InboundCallback, type RejectedCallback } from "./callbacks.js";
export {
  callbackRoutes,
  callbackUrlSettings,
  darajaFlows,
  type CallbackUrlSetting,
  type RegisteredCallback,
} from "./flows.js";
export { ACCEPTED_ANSWER, CALLBACK_ROUTE_PREFIX, type CallbackDoc, type CallbackUrlRule } from "./kernel/flow.js";
export { shopsOnSharedC2bToken } from "./c2b/c2b-tenant.js";
