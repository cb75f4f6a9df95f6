/**
 * The API's error codes (docs/errors.md) and the one table that
 * gives each its HTTP status. Both transports (REST and tRPC) format errors through `toErrorEnvelope`.
 */
import { TRPCError } from "@trpc/server";
import { ZodError } from "zod";

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
  // Phone sign-in (docs/phone-sign-in.md): the phone is verified on another account of the tenant.
  PHONE_IN_USE: 409,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export interface ErrorDetail {
  path: string;
  message: string;
}

export interface DomainErrorOptions {
  details?: unknown[];
  /** Only where one code has two statuses (INVALID_TOKEN is 400 on reset-password; docs/errors.md). */
  status?: number;
  /** Seconds, for RATE_LIMITED. */
  retryAfter?: number;
  cause?: unknown;
}

export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: unknown[] | undefined;
  readonly retryAfter: number | undefined;

  constructor(code: ErrorCode, message: string, options: DomainErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = "DomainError";
    this.code = code;
    this.status = options.status ?? errorStatus[code];
    this.details = options.details;
    this.retryAfter = options.retryAfter;
  }
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

/** A DomainError as a TRPCError whose tRPC code matches the status (for tRPC clients' own checks). */
export function toTrpcError(error: DomainError): TRPCError {
  return new TRPCError({ code: trpcCodeFor[error.status] ?? "INTERNAL_SERVER_ERROR", message: error.message, cause: error });
}

export function validationDetails(error: ZodError): ErrorDetail[] {
  return error.issues.map((issue) => ({
    path: issue.path.map(String).join(".") || "(body)",
    message: issue.message,
  }));
}

function fromTrpcError(error: TRPCError): DomainError {
  if (error.cause instanceof DomainError) return error.cause;
  if (error.cause instanceof ZodError) {
    return new DomainError("VALIDATION_ERROR", "The request is invalid.", { details: validationDetails(error.cause) });
  }
  switch (error.code) {
    case "PARSE_ERROR":
    case "UNSUPPORTED_MEDIA_TYPE":
      return new DomainError("MALFORMED_REQUEST", "The request body must be valid JSON sent as application/json.");
    case "PAYLOAD_TOO_LARGE":
      return new DomainError("PAYLOAD_TOO_LARGE", "The request body is too large.");
    case "NOT_FOUND":
      return new DomainError("NOT_FOUND", "Not found.");
    case "METHOD_NOT_SUPPORTED":
      return new DomainError("NOT_FOUND", "Not found.");
    case "BAD_REQUEST":
      return new DomainError("MALFORMED_REQUEST", error.message || "Malformed request.");
    default:
      return new DomainError("INTERNAL_ERROR", "Something went wrong on our side.", { cause: error });
  }
}

/** Turns anything thrown while serving a request into the error envelope (docs/errors.md). */
export function toErrorEnvelope(error: unknown): ErrorEnvelope {
  const domain =
    error instanceof DomainError
      ? error
      : error instanceof TRPCError
        ? fromTrpcError(error)
        : error instanceof ZodError
          ? new DomainError("VALIDATION_ERROR", "The request is invalid.", { details: validationDetails(error) })
          : new DomainError("INTERNAL_ERROR", "Something went wrong on our side.", { cause: error });
  const body: ErrorEnvelope["body"] = { success: false, message: domain.message, error: { code: domain.code } };
  if (domain.details) body.error.details = domain.details;
  return { status: domain.status, retryAfter: domain.retryAfter, body };
}
