export { DEFAULT_TOLERANCE_SECONDS, SIGNATURE_HEADER, digestsEqual, parseSignatureHeader, signatureHeader, signaturePayloadHmac, type ParsedSignature } from "./signature.js";
export { verifyWebhook, WebhookVerificationError, type VerifyWebhookOptions, type WebhookEvent, type WebhookVerificationFailure } from "./verify.js";
export { createAddressGuard, type AddressGuard } from "./address-guard.js";
export { createWebhookSender, guardedLookup, RefusedAddressError, type WebhookRequest, type WebhookResponse, type WebhookSender, type WebhookSenderOptions } from "./sender.js";
export { endpointUrlProblem, type EndpointUrlRules } from "./url-check.js";
