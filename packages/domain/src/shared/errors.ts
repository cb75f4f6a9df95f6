/**
 * The API's error codes (docs/errors.md) and the one table that
 * gives each its HTTP status. Both transports (REST and tRPC) format errors through `toErrorEnvelope`,
 * which also writes the message and details in the answer's language (docs/i18n.md).
 */
import { isDatabaseUnavailable } from "@mteja/db";
import { translate, type Locale, type MessageKey, type Text } from "@mteja/i18n";
import { TRPCError } from "@trpc/server";
import { ZodError } from "zod";
import { issueDetail, issueMessage, type IssueDetail } from "./i18n/validation-details.js";

export const errorStatus = {
  VALIDATION_ERROR: 422,
  MALFORMED_REQUEST: 400,
  TENANT_REQUIRED: 400,
  TENANT_NOT_FOUND: 404,
  USER_EXISTS: 409,
  INVALID_CREDENTIALS: 401,
  INVALID_OTP: 401,
  INVALID_TOKEN: 401,
  AUTH_REQUIRED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  RATE_LIMITED: 429,
  OTP_NOT_SETUP: 409,
  OTP_ALREADY_ENABLED: 409,
  EMAIL_NOT_VERIFIED: 403,
  PAYMENT_PROVIDER_ERROR: 502,
  PAYMENT_PROVIDER_UNAVAILABLE: 503,
  REFERENCE_IN_USE: 409,
  INTENT_NOT_PAYABLE: 409,
  INTENT_NOT_CANCELLABLE: 409,
  PAYLOAD_TOO_LARGE: 413,
  INTERNAL_ERROR: 500,
  // Reversals (docs/mpesa.md#reversals, the deprecated operation): a refund of the payment is not FAILED;
  // a payment that is not SUCCESS with a receipt cannot be reversed.
  REVERSAL_EXISTS: 409,
  PAYMENT_NOT_REVERSIBLE: 409,
  // Refunds (docs/mpesa.md#refunds): not SUCCESS; a part of a payment whose phone is stored masked; neither
  // a receipt nor the payer's full phone; a refund by B2C under Daraja's minimum.
  PAYMENT_NOT_REFUNDABLE: 409,
  // Phone sign-in: the phone is verified on another account of the shop.
  PHONE_IN_USE: 409,
  // The database (or another part a request needs) is away for a moment: a restart, a failover, a network
  // fault (docs/operations.md#database-outages). Always with Retry-After.
  SERVICE_UNAVAILABLE: 503,
  // The platform's texts of the hour are spent and this shop sent more than a quarter of them (docs/limits.md#texts).
  SMS_UNAVAILABLE: 503,
  // Email management: verifying a new address another account of the shop has (docs/email.md).
  EMAIL_IN_USE: 409,
  // The admin API: creating a tenant whose id is taken.
  TENANT_EXISTS: 409,
  // Step-up (docs/step-up.md): a sensitive operation on a session that is not fresh, without a body
  // proof; reauthenticate/sms for an account without a verified phone.
  STEP_UP_REQUIRED: 403,
  NO_VERIFIED_PHONE: 409,
  // Sign in with Google (docs/sign-in.md#sign-in-with-google): a verified Google email that is the verified
  // email of an account it is not linked to; a Google account linked to another account; unlinking or
  // removing the last way to sign in.
  ACCOUNT_EXISTS: 409,
  IDENTITY_IN_USE: 409,
  LAST_SIGN_IN_METHOD: 409,
} as const;

export type ErrorCode = keyof typeof errorStatus;

type CodesWithoutMessage = Exclude<`error.${ErrorCode}`, MessageKey>;
/** Compiles only while every code has its message `error.<CODE>` in both languages (packages/i18n/src/messages/errors.ts). */
export const everyCodeHasAMessage: [CodesWithoutMessage] extends [never] ? true : CodesWithoutMessage = true;

/** A field the domain refuses: `message` is rendered in the answer's language. */
export interface ErrorDetail {
  path: string;
  message: Text;
}

/** Daraja's own words about a refusal, shown as they came (docs/errors.md). */
export interface ProviderDetail {
  errorCode: string | null;
  errorMessage: string | null;
}

/** What `details` may hold: the domain's own, a zod issue, or a provider's detail. */
export type DetailSource = ErrorDetail | IssueDetail | ProviderDetail;

export interface DomainErrorOptions {
  details?: readonly DetailSource[];
  /** Only where one code has two statuses (INVALID_TOKEN is 400 on reset-password; docs/errors.md). */
  status?: number;
  /** Seconds, for RATE_LIMITED, SMS_UNAVAILABLE and SERVICE_UNAVAILABLE. */
  retryAfter?: number;
  /** The answer's language, where no request context will exist to decide it (a body refused before tRPC builds one). */
  locale?: Locale;
  cause?: unknown;
}

/**
 * An error the API answers with a code. Its message is a catalogue entry (the code's own when none is
 * given), so it can be answered in either language; `message` itself is the English text, for logs.
 */
export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly text: Text;
  readonly status: number;
  readonly details: readonly DetailSource[] | undefined;
  readonly retryAfter: number | undefined;
  readonly locale: Locale | undefined;

  constructor(code: ErrorCode, text?: Text, options: DomainErrorOptions = {}) {
    const own = text ?? codeText(code);
    super(translate("en", own), { cause: options.cause });
    this.name = "DomainError";
    this.code = code;
    this.text = own;
    this.status = options.status ?? errorStatus[code];
    this.details = options.details;
    this.retryAfter = options.retryAfter;
    this.locale = options.locale;
  }
}

function codeText(code: ErrorCode): Text {
  return `error.${code}` as Text;
}

export interface ErrorEnvelope {
  status: number;
  retryAfter?: number | undefined;
  body: { success: false; message: string; error: { code: ErrorCode; details?: unknown[] } };
}

const trpcCodeFor: Record<number, TRPCError["code"]> = {
  400: "BAD_REQUEST",
  401: "UNAUTHORIZED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  409: "CONFLICT",
  413: "PAYLOAD_TOO_LARGE",
  422: "UNPROCESSABLE_CONTENT",
  429: "TOO_MANY_REQUESTS",
  500: "INTERNAL_SERVER_ERROR",
  502: "BAD_GATEWAY",
  503: "SERVICE_UNAVAILABLE",
};

/** A DomainError as a TRPCError whose tRPC code matches the status (for tRPC clients' own checks; the envelope's message is localised by the formatter). */
export function toTrpcError(error: DomainError): TRPCError {
  return new TRPCError({ code: trpcCodeFor[error.status] ?? "INTERNAL_SERVER_ERROR", message: error.message, cause: error });
}

/**
 * Retry-After of SERVICE_UNAVAILABLE: a database restart or failover takes seconds, and a client that
 * comes back sooner only adds to the load of the instances that are starting again.
 */
export const serviceUnavailableRetryAfterSeconds = 5;

/** SERVICE_UNAVAILABLE for an error that says the database is away (@mteja/db's isDatabaseUnavailable). */
export function serviceUnavailable(cause: unknown): DomainError {
  return new DomainError("SERVICE_UNAVAILABLE", undefined, { retryAfter: serviceUnavailableRetryAfterSeconds, cause });
}

function validationError(error: ZodError): DomainError {
  return new DomainError("VALIDATION_ERROR", undefined, { details: error.issues.map(issueDetail) });
}

function fromTrpcError(error: TRPCError): DomainError {
  if (error.cause instanceof DomainError) return error.cause;
  if (error.cause instanceof ZodError) return validationError(error.cause);
  if (isDatabaseUnavailable(error.cause)) return serviceUnavailable(error.cause);
  // tRPC's refusal of a procedure's stream (a file answer, docs/reports.md) to a link that cannot take one.
  if (error.code === "UNSUPPORTED_MEDIA_TYPE" && error.message.startsWith("Cannot use stream-like response")) {
    return new DomainError("MALFORMED_REQUEST", "http.stream_needs_streaming_link");
  }
  switch (error.code) {
    case "PARSE_ERROR":
    case "UNSUPPORTED_MEDIA_TYPE":
      return new DomainError("MALFORMED_REQUEST", "http.body_not_json");
    case "PAYLOAD_TOO_LARGE":
      return new DomainError("PAYLOAD_TOO_LARGE");
    case "NOT_FOUND":
    case "METHOD_NOT_SUPPORTED":
      return new DomainError("NOT_FOUND");
    case "BAD_REQUEST":
      return new DomainError("MALFORMED_REQUEST", undefined, { cause: error });
    default:
      return new DomainError("INTERNAL_ERROR", undefined, { cause: error });
  }
}

/** Turns anything thrown while serving a request into the error envelope (docs/errors.md), in the answer's language. */
export function toErrorEnvelope(error: unknown, answerLocale: Locale = "en"): ErrorEnvelope {
  const domain =
    error instanceof DomainError
      ? error
      : error instanceof TRPCError
        ? fromTrpcError(error)
        : error instanceof ZodError
          ? validationError(error)
          : isDatabaseUnavailable(error)
            ? serviceUnavailable(error)
            : new DomainError("INTERNAL_ERROR", undefined, { cause: error });
  const locale = domain.locale ?? answerLocale;
  const body: ErrorEnvelope["body"] = { success: false, message: translate(locale, domain.text), error: { code: domain.code } };
  if (domain.details) body.error.details = domain.details.map((detail) => renderDetail(detail, locale));
  return { status: domain.status, retryAfter: domain.retryAfter, body };
}

function renderDetail(detail: DetailSource, locale: Locale): unknown {
  if ("issue" in detail) return { path: detail.path, message: issueMessage(detail, locale) };
  if ("path" in detail) return { path: detail.path, message: translate(locale, detail.message) };
  return detail;
}
