import { TRPCClientError } from "@trpc/client";

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
  if (!(error instanceof TRPCClientError)) return false;
  const shape = error.shape as { error?: { code?: unknown } } | undefined;
  const data = error.data as { httpStatus?: unknown } | undefined;
  return data?.httpStatus === 401 && shape?.error?.code === "INVALID_TOKEN";
}
