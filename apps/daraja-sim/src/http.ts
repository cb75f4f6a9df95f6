import type { FastifyReply, FastifyRequest } from "fastify";
import {
  darajaError,
  invalidAccessToken,
  invalidField,
  type DarajaAnswer,
  type DarajaSimulation,
  type JsonBody,
} from "@mteja/simulated-daraja";

export type { JsonBody };

/** Sends the simulation's answer as Daraja would: its status, its JSON (or its bare text). */
export const sendAnswer = (reply: FastifyReply, answer: DarajaAnswer) => reply.code(answer.status).send(answer.body);

/** Daraja's synchronous error envelope (docs/daraja-wire-format.md#error-envelope). */
export const sendDarajaError = (reply: FastifyReply, status: number, errorCode: string, errorMessage: string) =>
  sendAnswer(reply, darajaError(status, errorCode, errorMessage));

/**
 * Reads the JSON body the way Daraja does: without `Content-Type: application/json` the gateway
 * reports the first field it could not read (e.g. `Invalid BusinessShortCode`).
 */
export function readJsonBody(request: FastifyRequest, reply: FastifyReply, firstField: string): JsonBody | null {
  const contentType = String(request.headers["content-type"] ?? "");
  const raw = typeof request.body === "string" ? request.body : "";
  if (!/^application\/json\b/i.test(contentType) || raw.trim() === "") {
    sendAnswer(reply, invalidField(firstField));
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

/** True when the bearer token is one the simulation issued, unexpired and (strict mode) the latest. */
export function requireAccessToken(
  request: FastifyRequest,
  reply: FastifyReply,
  simulation: DarajaSimulation,
): boolean {
  if (simulation.tokens.accepts(String(request.headers.authorization ?? ""))) return true;
  sendAnswer(reply, invalidAccessToken());
  return false;
}

/**
 * A Daraja operation over HTTP: the token, what the gateway refuses before the body, then the body
 * (its first field named when it cannot be read), then the simulation's answer.
 */
export function darajaRoute(
  simulation: DarajaSimulation,
  firstField: string,
  answer: (body: JsonBody) => Promise<DarajaAnswer>,
  refusal: () => DarajaAnswer | null = () => null,
) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (!requireAccessToken(request, reply, simulation)) return reply;
    const refused = refusal();
    if (refused) return sendAnswer(reply, refused);
    const body = readJsonBody(request, reply, firstField);
    if (!body) return reply;
    return sendAnswer(reply, await answer(body));
  };
}
