export { DEFAULT_TOLERANCE_SECONDS, SIGNATURE_HEADER, digestsEqual, parseSignatureHeader, signatureHeader, signaturePayloadHmac, type ParsedSignature } from "./signature.js";
export { verifyWebhook, WebhookVerificationError, type VerifyWebhookOptions, type WebhookEvent, type WebhookVerificationFailure } from "./verify.js";
