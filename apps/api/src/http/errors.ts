/**
 * The one place where anything thrown while serving a request becomes the error envelope (docs/errors.md)
 * and HTTP status: domain errors, tRPC errors (including zod input errors) and Fastify's own
 * (malformed JSON, body too large, wrong content type).
 */
import { DomainError, toErrorEnvelope, type ErrorEnvelope } from "@mteja/domain";
import type { FastifyError } from "fastify";

export function envelopeFor(error: unknown): ErrorEnvelope {
  return toErrorEnvelope(fromFastifyError(error));
}

function fromFastifyError(error: unknown): unknown {
  const code = (error as FastifyError | undefined)?.code;
  if (typeof code !== "string" || !code.startsWith("FST_")) {
    return error instanceof SyntaxError ? malformed() : error;
  }
  switch (code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return new DomainError("PAYLOAD_TOO_LARGE", "The request body is too large.");
    case "FST_ERR_NOT_FOUND":
      return new DomainError("NOT_FOUND", "Not found.");
    default: {
      const status = (error as FastifyError).statusCode ?? 500;
      return status < 500 ? malformed() : error;
    }
  }
}

function malformed(): DomainError {
  return new DomainError("MALFORMED_REQUEST", "The request body must be valid JSON sent as application/json.");
}
