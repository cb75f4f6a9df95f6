/**
 * The Mteja-Signature header of a webhook delivery, written and checked by the same code:
 *
 *   Mteja-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>[,v1=<…>]
 *
 * Several v1 values appear while an endpoint's secret is being rotated (new secret first, then the
 * old one, for 24 hours): a receiver accepts the delivery when any of them matches its secret.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

export const SIGNATURE_HEADER = "Mteja-Signature";
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** The hex HMAC-SHA256 of "<timestamp>.<raw body>" under one endpoint secret. */
export function signaturePayloadHmac(secret: string, timestamp: number, rawBody: string | Uint8Array): string {
  const hmac = createHmac("sha256", secret);
  hmac.update(`${timestamp}.`);
  hmac.update(rawBody);
  return hmac.digest("hex");
}

/** The header value for one delivery: one v1 per secret, in the order given (the newest first). */
export function signatureHeader(secrets: readonly string[], timestamp: number, rawBody: string | Uint8Array): string {
  if (secrets.length === 0) throw new Error("signatureHeader needs at least one secret");
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) throw new Error("signatureHeader needs a whole number of unix seconds");
  return [`t=${timestamp}`, ...secrets.map((secret) => `v1=${signaturePayloadHmac(secret, timestamp, rawBody)}`)].join(",");
}

export interface ParsedSignature {
  timestamp: number;
  signatures: string[];
}

/** Splits a header into its timestamp and v1 values; undefined when it has no usable timestamp or no v1. */
export function parseSignatureHeader(header: string): ParsedSignature | undefined {
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(",")) {
    const separator = part.indexOf("=");
    if (separator < 0) continue;
    const key = part.slice(0, separator).trim();
    const value = part.slice(separator + 1).trim();
    if (key === "t" && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (key === "v1" && /^[0-9a-f]{64}$/i.test(value)) signatures.push(value.toLowerCase());
  }
  if (timestamp === undefined || signatures.length === 0) return undefined;
  return { timestamp, signatures };
}

/** Compares two hex digests without revealing, through timing, how much of them matched. */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}
