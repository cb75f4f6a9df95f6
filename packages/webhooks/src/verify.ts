import { DEFAULT_TOLERANCE_SECONDS, digestsEqual, parseSignatureHeader, signaturePayloadHmac } from "./signature.js";

export type WebhookVerificationFailure = "missing_header" | "malformed_header" | "timestamp_out_of_tolerance" | "signature_mismatch" | "malformed_body";

/** Thrown by verifyWebhook; `reason` says which check failed (never which bytes). */
export class WebhookVerificationError extends Error {
  constructor(readonly reason: WebhookVerificationFailure) {
    super(`Webhook signature verification failed: ${reason.replaceAll("_", " ")}`);
    this.name = "WebhookVerificationError";
  }
}

export interface VerifyWebhookOptions {
  /** How far the header's timestamp may be from now, either way, in seconds (default 300): replays of old deliveries are refused. */
  toleranceSeconds?: number;
  /** The receiver's clock, in milliseconds since the epoch (default Date.now): tests pass their own. */
  now?: () => number;
}

/** What Mteja sends in a delivery's body. */
export interface WebhookEvent<Data = Record<string, unknown>> {
  id: string;
  type: string;
  created_at: string;
  tenant_id: string;
  data: Data;
}

/**
 * Checks a delivery's Mteja-Signature against the endpoint's secret and answers the event it carries.
 * Pass the body exactly as received (the raw bytes or string, before any JSON parsing): a body that was
 * parsed and serialised again no longer matches. Throws WebhookVerificationError when the header is
 * absent or malformed, its timestamp is outside the tolerance, or no v1 value matches.
 */
export function verifyWebhook<Data = Record<string, unknown>>(
  rawBody: string | Uint8Array,
  header: string | string[] | undefined | null,
  secret: string,
  options: VerifyWebhookOptions = {},
): WebhookEvent<Data> {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) throw new WebhookVerificationError("missing_header");
  const parsed = parseSignatureHeader(value);
  if (!parsed) throw new WebhookVerificationError("malformed_header");
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const nowSeconds = Math.floor((options.now ?? Date.now)() / 1000);
  if (Math.abs(nowSeconds - parsed.timestamp) > tolerance) throw new WebhookVerificationError("timestamp_out_of_tolerance");
  const expected = signaturePayloadHmac(secret, parsed.timestamp, rawBody);
  // Every candidate is compared (no early exit), so the time taken does not tell which one matched.
  const matched = parsed.signatures.reduce((found, candidate) => digestsEqual(candidate, expected) || found, false);
  if (!matched) throw new WebhookVerificationError("signature_mismatch");
  try {
    const text = typeof rawBody === "string" ? rawBody : new TextDecoder().decode(rawBody);
    return JSON.parse(text) as WebhookEvent<Data>;
  } catch {
    throw new WebhookVerificationError("malformed_body");
  }
}
