/**
 * Daraja failures as the API reports them (docs/errors.md): PAYMENT_PROVIDER_ERROR 502 (Daraja refused the request;
 * its errorCode/errorMessage in `details`) and PAYMENT_PROVIDER_UNAVAILABLE 503 (Daraja was never
 * reached: nothing was sent), and as they are written to a row's last_error so an idempotent retry
 * can answer the same error again. A request whose outcome is unknown is not an error: the callers
 * answer 202 (docs/mpesa.md "Unknown outcomes").
 */
import { DarajaError } from "@mteja/daraja";
import type { Text } from "@mteja/i18n";
import { DomainError } from "../../shared/errors.js";

export interface ProviderErrorDetail {
  errorCode: string | null;
  errorMessage: string | null;
}

const ERROR_PREFIX = "provider error";
const UNAVAILABLE_PREFIX = "provider unavailable";
const UNKNOWN_PREFIX = "outcome unknown";

/** True when nothing can have happened at Daraja: it refused the request, or the request was never sent. */
export function certainlyNotActedOn(error: DarajaError): boolean {
  return error.outcome !== "unknown";
}

/** last_error of a request that may have reached Daraja (the row stays open until Daraja settles it). */
export function unknownOutcomeNote(error: unknown): string {
  const what = error instanceof DarajaError ? lastErrorOf(error) : "no usable answer from Daraja";
  return `${UNKNOWN_PREFIX}: ${what}`.slice(0, 500);
}

/** What a row remembers of a failure; replayedError reads it back (a refusal: 502, anything else: 503). */
export function lastErrorOf(error: DarajaError): string {
  if (error.outcome !== "refused") {
    const http = error.httpStatus !== null ? ` (HTTP ${error.httpStatus})` : "";
    const code = error.errorCode ? ` ${error.errorCode}` : "";
    return `${UNAVAILABLE_PREFIX}: ${error.reason}${http}${code}${error.errorMessage ? `: ${error.errorMessage}` : ""}`.slice(0, 500);
  }
  return `${ERROR_PREFIX} ${error.errorCode ?? "-"}: ${error.errorMessage ?? ""}`.slice(0, 500);
}

export function providerUnavailable(message?: Text): DomainError {
  return new DomainError("PAYMENT_PROVIDER_UNAVAILABLE", message);
}

export function providerError(detail: ProviderErrorDetail): DomainError {
  return new DomainError("PAYMENT_PROVIDER_ERROR", undefined, { details: [detail] });
}

/** The API error for a Daraja failure: 502 only for Daraja's own refusal. */
export function toProviderError(error: DarajaError): DomainError {
  if (error.outcome !== "refused") return providerUnavailable();
  return providerError({ errorCode: error.errorCode, errorMessage: error.errorMessage });
}

/** The error a failed request answered, rebuilt from its last_error (for an idempotent retry). */
export function replayedError(lastError: string | null): DomainError {
  const match = lastError ? new RegExp(`^${ERROR_PREFIX} (\\S+): (.*)$`, "s").exec(lastError) : null;
  if (match) return providerError({ errorCode: match[1] === "-" ? null : (match[1] ?? null), errorMessage: match[2] || null });
  return providerUnavailable();
}

export { DarajaError };
