/** What the composition root (apps/api) uses of the payments area. */
export type { MomoDeps, MomoSettings } from "./momo-deps.js";
export { createPaymentEvents, type PaymentEvents, type PaymentStatusEvent } from "./payment-events.js";
export { createStatusStreamSlots, MAX_OPEN_STATUS_STREAMS_PER_USER, type StatusStreamSlots } from "./status-stream-slots.js";
export { createReconciler, defaultReconcileOptions, type Reconciler, type ReconcileOptions, type ReconcileReport } from "./reconciliation.js";
export { createCallbackTokens, tenantCallbackUrl, type CallbackTokens } from "./callback-tokens.js";
export { receiveCallback, callbackTokenValid, type CallbackKind, type CallbackReply, type InboundCallback, type RejectedCallback } from "./callbacks.js";
export { shopsOnSharedC2bToken } from "./c2b/c2b-tenant.js";
