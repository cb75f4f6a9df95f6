import type { FastifyReply, FastifyRequest } from "fastify";
import type { ResolvedSimulatorOptions } from "./options.js";
import type { SimulatorState } from "./state.js";
import { newRequestId } from "./wire.js";

export type JsonBody = Record<string, unknown>;

/** Daraja's synchronous error envelope (docs/daraja-wire-format.md#error-envelope). */
export function sendDarajaError(reply: FastifyReply, status: number, errorCode: string, errorMessage: string, requestId = newRequestId()) {
  return reply.code(status).send({ requestId, errorCode, errorMessage });
}

export const badRequest = (reply: FastifyReply, field: string) => sendDarajaError(reply, 400, "400.002.02", `Bad Request - Invalid ${field}`);

/** A rejection to send as Daraja's envelope. */
export interface DarajaProblem {
  status: number;
  errorCode: string;
  errorMessage: string;
}

export const invalidField = (field: string): DarajaProblem => ({ status: 400, errorCode: "400.002.02", errorMessage: `Bad Request - Invalid ${field}` });

export const sendProblem = (reply: FastifyReply, problem: DarajaProblem) => sendDarajaError(reply, problem.status, problem.errorCode, problem.errorMessage);

/**
 * Reads the JSON body the way Daraja does: without `Content-Type: application/json` the gateway
 * reports the first field it could not read (e.g. `Invalid BusinessShortCode`).
 */
export function readJsonBody(request: FastifyRequest, reply: FastifyReply, firstField: string): JsonBody | null {
  const contentType = String(request.headers["content-type"] ?? "");
  const raw = typeof request.body === "string" ? request.body : "";
  if (!/^application\/json\b/i.test(contentType) || raw.trim() === "") {
    badRequest(reply, firstField);
    return null;
  }
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) return parsed as JsonBody;
  } catch {
    // fall through
  }
  sendDarajaError(reply, 400, "400.002.02", "Bad Request - Invalid JSON");
  return null;
}

/** True when the bearer token is one the simulator issued, unexpired and (strict mode) the latest. */
export function requireAccessToken(request: FastifyRequest, reply: FastifyReply, options: ResolvedSimulatorOptions, state: SimulatorState): boolean {
  const match = /^Bearer\s+(\S+)$/i.exec(String(request.headers.authorization ?? ""));
  const expiresAt = match?.[1] ? state.tokens.get(match[1]) : undefined;
  if (expiresAt === undefined || expiresAt <= options.now().getTime()) {
    sendDarajaError(reply, 404, "404.001.03", "Invalid Access Token");
    return false;
  }
  return true;
}

/** A field Daraja types as Numeric or String: both JSON forms are accepted. */
export function text(value: unknown): string | null {
  if (typeof value === "string") return value.trim();
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return null;
}

/** A whole, positive amount given as a number or a numeric string; null otherwise. */
export function wholeAmount(value: unknown): number | null {
  const raw = text(value);
  if (raw === null || !/^\d+(\.0+)?$/.test(raw)) return null;
  const amount = Number(raw);
  return Number.isSafeInteger(amount) && amount > 0 ? amount : null;
}

const BLOCKED_URL_WORDS = /m-?pesa|safaricom|exe|cmd|sql|query/i;

/** docs/daraja-wire-format.md#callback-urls: http(s) URL, and (when enabled) none of the words Daraja's processor rejects. */
export function isAcceptableCallbackUrl(value: unknown, blockKeywords: boolean): value is string {
  if (typeof value !== "string") return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  return !(blockKeywords && BLOCKED_URL_WORDS.test(value));
}
