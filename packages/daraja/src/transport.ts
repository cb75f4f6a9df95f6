import ky, { isTimeoutError } from "ky";
import { DarajaError } from "./errors.js";

export interface DarajaHttpResponse {
  status: number;
  /** Parsed JSON when the body is JSON, else the raw text (possibly empty). */
  body: unknown;
}

export interface DarajaRequest {
  method: "GET" | "POST";
  path: string;
  headers: Record<string, string>;
  json?: unknown;
  searchParams?: Record<string, string>;
}

export interface DarajaTransport {
  send(request: DarajaRequest): Promise<DarajaHttpResponse>;
}

export interface TransportOptions {
  baseUrl: string;
  timeoutMs: number;
  fetch?: typeof globalThis.fetch;
}

/** Failures that happen before a byte of the request is written: nothing reached Daraja. */
const CONNECT_ERROR_CODES: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EADDRNOTAVAIL",
  "UND_ERR_CONNECT_TIMEOUT",
  "CERT_HAS_EXPIRED",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "ERR_TLS_CERT_ALTNAME_INVALID",
]);

/** The first `code` along the cause chain (ky's NetworkError → fetch's TypeError → the socket error). */
function errorCodeOf(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

export function isConnectError(error: unknown): boolean {
  const code = errorCodeOf(error);
  return code !== undefined && CONNECT_ERROR_CODES.has(code);
}

function parseBody(text: string): unknown {
  if (text === "") return "";
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * One HTTP exchange with Daraja, no retries (callers decide what is safe to repeat). Every non-2xx
 * comes back as a response; only the absence of a response (refused, reset, timed out) throws,
 * as a DarajaError of kind 'unavailable'.
 */
export function createTransport(options: TransportOptions): DarajaTransport {
  const http = ky.create({
    prefix: options.baseUrl,
    timeout: options.timeoutMs,
    retry: 0,
    throwHttpErrors: false,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });

  return {
    async send(request) {
      try {
        const response = await http(request.path.replace(/^\//, ""), {
          method: request.method,
          headers: request.headers,
          ...(request.json === undefined ? {} : { json: request.json }),
          ...(request.searchParams ? { searchParams: request.searchParams } : {}),
        });
        return { status: response.status, body: parseBody(await response.text()) };
      } catch (error) {
        const timedOut = isTimeoutError(error);
        throw new DarajaError({
          kind: "unavailable",
          outcome: !timedOut && isConnectError(error) ? "not_sent" : "unknown",
          reason: timedOut ? "timeout" : "network",
          httpStatus: null,
          errorCode: null,
          errorMessage: timedOut ? `no answer within ${options.timeoutMs} ms` : "Daraja could not be reached",
          requestId: null,
          cause: error,
        });
      }
    },
  };
}
