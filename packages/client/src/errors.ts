import { TRPCClientError } from "@trpc/client";
import type { AppRouter, ErrorCode } from "./router-types.js";

/**
 * Every error code a call can fail with: the API's codes (docs/errors.md) and NETWORK_ERROR, which the
 * client reports when a refresh never reached the service.
 */
export type MtejaErrorCode = ErrorCode | "NETWORK_ERROR";

/** A failed call, typed from the service's error shape: `shape.error.code`, `data.httpStatus`, `data.retryAfter`. */
export type MtejaError<C extends MtejaErrorCode = MtejaErrorCode> = TRPCClientError<AppRouter> & {
  shape: { message: string; success: false; error: { code: C; details?: unknown[] } };
  data: { httpStatus: number; retryAfter?: number | undefined; path?: string };
};

/** The API's error code of a failure, or undefined when it is not an answer of the service. */
export function errorCodeOf(error: unknown): MtejaErrorCode | undefined {
  if (!(error instanceof TRPCClientError)) return undefined;
  const code = (error.shape as { error?: { code?: unknown } } | undefined)?.error?.code;
  return typeof code === "string" ? (code as MtejaErrorCode) : undefined;
}

/**
 * True when `error` is a failure answered by the service (or a failed refresh), narrowed to its typed
 * shape; with `codes`, only when its code is one of them:
 * `if (isMtejaError(e, "INVALID_OTP")) showCodeField()`.
 */
export function isMtejaError<C extends MtejaErrorCode = MtejaErrorCode>(error: unknown, ...codes: C[]): error is MtejaError<C> {
  const code = errorCodeOf(error);
  return code !== undefined && (codes.length === 0 || (codes as string[]).includes(code));
}

/** One field a VALIDATION_ERROR names: its path in the input ("email", "metadata.order") and what is wrong. */
export interface ValidationDetail {
  path: string;
  message: string;
}

/** The fields a VALIDATION_ERROR names (empty for any other failure). */
export function validationDetailsOf(error: unknown): ValidationDetail[] {
  if (!isMtejaError(error, "VALIDATION_ERROR")) return [];
  return (error.shape.error.details ?? []).filter(
    (detail): detail is ValidationDetail =>
      typeof detail === "object" && detail !== null && typeof (detail as ValidationDetail).path === "string" && typeof (detail as ValidationDetail).message === "string",
  );
}

/** tRPC's JSON-RPC codes for the statuses a refresh can answer (the server's own mapping). */
const jsonRpcCode: Record<number, { code: number; name: string }> = {
  400: { code: -32600, name: "BAD_REQUEST" },
  401: { code: -32001, name: "UNAUTHORIZED" },
  403: { code: -32003, name: "FORBIDDEN" },
  404: { code: -32004, name: "NOT_FOUND" },
  429: { code: -32029, name: "TOO_MANY_REQUESTS" },
};

interface Envelope {
  message?: string;
  error?: { code?: string; details?: unknown };
}

/**
 * A failed refresh as the same kind of error every call throws: a TRPCClientError whose
 * `shape.error.code` is the API's error code (docs/errors.md) (AUTH_REQUIRED, INVALID_TOKEN, RATE_LIMITED…) and whose
 * `data.httpStatus` is the status. A network failure keeps its cause and reports status 0.
 */
export function refreshFailure(status: number, body: Envelope | undefined, cause?: unknown, retryAfter?: string | null): TRPCClientError<never> {
  const code = body?.error?.code ?? (status === 0 ? "NETWORK_ERROR" : "INTERNAL_ERROR");
  const message = body?.message ?? (cause instanceof Error ? cause.message : `The session could not be refreshed (HTTP ${status}).`);
  const rpc = jsonRpcCode[status] ?? { code: -32603, name: "INTERNAL_SERVER_ERROR" };
  const error = new TRPCClientError<never>(message, {
    result: {
      error: {
        message,
        code: rpc.code,
        data: { code: rpc.name, httpStatus: status, path: "auth.refresh", ...(retryAfter ? { retryAfter: Number(retryAfter) } : {}) },
        success: false,
        error: { code, details: body?.error?.details ?? [] },
      },
    } as never,
    ...(cause instanceof Error ? { cause } : {}),
  });
  return error;
}

/** True for the answer the service gives to an expired or revoked access token. */
export function isExpiredAccessToken(error: unknown): boolean {
  return isMtejaError(error, "INVALID_TOKEN") && error.data?.httpStatus === 401;
}
