/**
 * Daraja failures as the API reports them (docs/errors.md: PAYMENT_PROVIDER_ERROR 502 with Daraja's
 * errorCode/errorMessage in `details`; PAYMENT_PROVIDER_UNAVAILABLE 503), and as they are written to
 * a row's last_error so an idempotent retry can answer the same error again.
 */
import { DarajaError } from "@mteja/daraja";
import { DomainError } from "../errors.js";

export interface ProviderErrorDetail {
  errorCode: string | null;
  errorMessage: string | null;
}

const ERROR_PREFIX = "provider error";
const UNAVAILABLE_PREFIX = "provider unavailable";

/** True when Daraja certainly did not act on the request: it answered (with an error). */
export function darajaAnswered(error: DarajaError): boolean {
  return error.httpStatus !== null;
}

export function lastErrorOf(error: DarajaError): string {
  if (error.kind === "unavailable") {
    return `${UNAVAILABLE_PREFIX}: ${error.reason}${error.httpStatus !== null ? ` (HTTP ${error.httpStatus})` : ""}${error.errorMessage ? `: ${error.errorMessage}` : ""}`;
  }
  return `${ERROR_PREFIX} ${error.errorCode ?? "-"}: ${error.errorMessage ?? ""}`.slice(0, 500);
}

export function providerUnavailable(message = "M-Pesa could not be reached; please try again shortly.", details?: unknown[]): DomainError {
  return new DomainError("PAYMENT_PROVIDER_UNAVAILABLE", message, details ? { details } : {});
}

export function providerError(detail: ProviderErrorDetail): DomainError {
  return new DomainError("PAYMENT_PROVIDER_ERROR", "M-Pesa refused the request.", { details: [detail] });
}

/** The API error for a Daraja failure. */
export function toProviderError(error: DarajaError): DomainError {
  if (error.kind === "unavailable") return providerUnavailable();
  return providerError({ errorCode: error.errorCode, errorMessage: error.errorMessage });
}

/** The error a failed request answered, rebuilt from its last_error (for an idempotent retry). */
export function replayedError(lastError: string | null): DomainError {
  const match = lastError ? new RegExp(`^${ERROR_PREFIX} (\\S+): (.*)$`, "s").exec(lastError) : null;
  if (match) return providerError({ errorCode: match[1] === "-" ? null : (match[1] ?? null), errorMessage: match[2] || null });
  return providerUnavailable();
}

export { DarajaError };
