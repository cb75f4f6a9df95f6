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
