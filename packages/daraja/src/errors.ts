export type DarajaErrorKind = "provider_error" | "unavailable";

/**
 * What a failed request proves about the money it asked to move (the one place this is decided):
 *
 * - `refused`: Daraja answered and refused it (its JSON error envelope with a 4xx status, or a
 *   ResponseCode other than "0"). Nothing happened.
 * - `not_sent`: the request never left this service (no connection, or the OAuth token could not
 *   be obtained). Nothing happened.
 * - `unknown`: the request may have reached Daraja (a time-out or reset after sending, any 5xx or
 *   gateway page, a body that does not parse). It may have been acted on; only Daraja's later word
 *   (callback, query, Transaction Status) settles it, and it must never be sent again blindly.
 */
export type DarajaOutcome = "refused" | "not_sent" | "unknown";

/**
 * What a Daraja error means, read from errorCode and errorMessage together (`500.001.1001` alone
 * covers wrong credentials, a locked subscriber, an unknown merchant and a pending query).
 */
export type DarajaErrorReason =
  | "invalid_access_token"
  | "invalid_client_credentials"
  | "wrong_credentials"
  | "merchant_does_not_exist"
  | "subscriber_locked"
  | "duplicate_originator_conversation_id"
  | "invalid_request"
  | "system_busy"
  | "quota_exceeded"
  | "network"
  | "timeout"
  | "other";

export interface DarajaErrorEnvelope {
  requestId: string | null;
  errorCode: string;
  errorMessage: string;
}

export interface DarajaErrorDetails {
  kind: DarajaErrorKind;
  outcome: DarajaOutcome;
  reason: DarajaErrorReason;
  httpStatus: number | null;
  errorCode: string | null;
  errorMessage: string | null;
  requestId: string | null;
  cause?: unknown;
}

export class DarajaError extends Error {
  readonly kind: DarajaErrorKind;
  readonly outcome: DarajaOutcome;
  readonly reason: DarajaErrorReason;
  readonly httpStatus: number | null;
  readonly errorCode: string | null;
  readonly errorMessage: string | null;
  readonly requestId: string | null;

  constructor(details: DarajaErrorDetails) {
    const summary = [details.errorCode, details.errorMessage].filter(Boolean).join(" ");
    super(
      `Daraja ${details.kind}${details.httpStatus === null ? "" : ` (HTTP ${details.httpStatus})`}${summary ? `: ${summary}` : ""}`,
      details.cause === undefined ? undefined : { cause: details.cause },
    );
    this.name = "DarajaError";
    this.kind = details.kind;
    this.outcome = details.outcome;
    this.reason = details.reason;
    this.httpStatus = details.httpStatus;
    this.errorCode = details.errorCode;
    this.errorMessage = details.errorMessage;
    this.requestId = details.requestId;
  }
}

export function isDarajaError(error: unknown): error is DarajaError {
  return error instanceof DarajaError;
}

/** Reads Daraja's `{ requestId, errorCode, errorMessage }` envelope; null when the body is something else. */
export function readErrorEnvelope(body: unknown): DarajaErrorEnvelope | null {
  if (typeof body !== "object" || body === null) return null;
  const { requestId, errorCode, errorMessage } = body as Record<string, unknown>;
  if (typeof errorCode !== "string" || errorCode === "") return null;
  return {
    requestId: typeof requestId === "string" ? requestId : null,
    errorCode,
    errorMessage: typeof errorMessage === "string" ? errorMessage : "",
  };
}

export const INVALID_ACCESS_TOKEN_CODE = "404.001.03";

export function isInvalidAccessToken(envelope: DarajaErrorEnvelope | null): boolean {
  return envelope?.errorCode === INVALID_ACCESS_TOKEN_CODE;
}

/** The classic pending answer of the STK query: HTTP 500 `500.001.1001 The transaction is being processed`. */
export function isTransactionBeingProcessed(envelope: DarajaErrorEnvelope | null): boolean {
  return envelope?.errorCode === "500.001.1001" && /being processed/i.test(envelope.errorMessage);
}

function reasonOf(envelope: DarajaErrorEnvelope): DarajaErrorReason {
  const { errorCode, errorMessage } = envelope;
  if (errorCode === INVALID_ACCESS_TOKEN_CODE) return "invalid_access_token";
  if (errorCode.startsWith("400.008.")) return "invalid_client_credentials";
  if (errorCode === "500.003.02") return "system_busy";
  if (errorCode === "500.003.03") return "quota_exceeded";
  if (errorCode === "500.002.1001" && /duplicate/i.test(errorMessage)) return "duplicate_originator_conversation_id";
  if (errorCode === "500.001.1001") {
    if (/wrong credentials/i.test(errorMessage)) return "wrong_credentials";
    if (/merchant does not exist/i.test(errorMessage)) return "merchant_does_not_exist";
    if (/unable to lock subscriber/i.test(errorMessage)) return "subscriber_locked";
  }
  if (errorCode.startsWith("400.")) return "invalid_request";
  return "other";
}

/** Only Daraja's own error envelope on a 4xx proves that Daraja looked at the request and refused it. */
function outcomeOfAnswer(httpStatus: number, envelope: DarajaErrorEnvelope | null): DarajaOutcome {
  return envelope !== null && httpStatus >= 400 && httpStatus < 500 ? "refused" : "unknown";
}

/** Maps a non-2xx answer to a DarajaError. */
export function darajaErrorFromResponse(httpStatus: number, body: unknown): DarajaError {
  const envelope = readErrorEnvelope(body);
  const outcome = outcomeOfAnswer(httpStatus, envelope);
  if (envelope === null) {
    const unavailable = httpStatus >= 500;
    return new DarajaError({
      kind: unavailable ? "unavailable" : "provider_error",
      outcome,
      reason: "other",
      httpStatus,
      errorCode: null,
      errorMessage: typeof body === "string" && body !== "" ? body.slice(0, 200) : null,
      requestId: null,
    });
  }
  const reason = reasonOf(envelope);
  return new DarajaError({
    kind: reason === "system_busy" ? "unavailable" : "provider_error",
    outcome,
    reason,
    httpStatus,
    errorCode: envelope.errorCode,
    errorMessage: envelope.errorMessage,
    requestId: envelope.requestId,
  });
}

/** A 2xx whose ResponseCode is not "0": Daraja answered and did not accept the request. */
export function refusedByResponseCode(httpStatus: number, responseCode: string, responseDescription: string): DarajaError {
  return new DarajaError({
    kind: "provider_error",
    outcome: "refused",
    reason: "other",
    httpStatus,
    errorCode: responseCode,
    errorMessage: responseDescription,
    requestId: null,
  });
}

/** A 2xx whose body is not what the endpoint promises: Daraja (or something in front of it) may have acted. */
export function unexpectedAnswer(httpStatus: number, what: string): DarajaError {
  return new DarajaError({
    kind: "provider_error",
    outcome: "unknown",
    reason: "other",
    httpStatus,
    errorCode: null,
    errorMessage: `unexpected ${what} answer`,
    requestId: null,
  });
}

/** The same error, marked as never sent (the money request was not made because its token could not be had). */
export function asNotSent(error: DarajaError): DarajaError {
  if (error.outcome === "not_sent") return error;
  return new DarajaError({
    kind: "unavailable",
    outcome: "not_sent",
    reason: error.reason,
    httpStatus: error.httpStatus,
    errorCode: error.errorCode,
    errorMessage: error.errorMessage,
    requestId: error.requestId,
    cause: error,
  });
}
