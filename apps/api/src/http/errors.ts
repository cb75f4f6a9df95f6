/**
 * The one place where anything thrown while serving a request becomes the error envelope (docs/errors.md)
 * and HTTP status: domain errors, tRPC errors (including zod input errors) and Fastify's own
 * (malformed JSON, body too large, wrong content type), down to requests Node's HTTP parser refuses
 * before Fastify sees them (`clientErrorResponse`).
 */
import { DomainError, toErrorEnvelope, type ErrorEnvelope } from "@mteja/domain";
import { localeFromAcceptLanguage, type Locale } from "@mteja/i18n";
import type { FastifyError, FastifyRequest } from "fastify";
import { STATUS_CODES } from "node:http";

export function envelopeFor(error: unknown, locale?: Locale): ErrorEnvelope {
  return toErrorEnvelope(fromFastifyError(error), locale);
}

/** The language of an answer Fastify gives before any procedure runs: Accept-Language only (nobody is signed in yet). */
export function requestLocale(request: FastifyRequest): Locale | undefined {
  const header = request.headers["accept-language"];
  return localeFromAcceptLanguage(Array.isArray(header) ? header[0] : header);
}

function fromFastifyError(error: unknown): unknown {
  const code = (error as FastifyError | undefined)?.code;
  if (typeof code !== "string" || !code.startsWith("FST_")) {
    return error instanceof SyntaxError ? malformed() : error;
  }
  switch (code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return new DomainError("PAYLOAD_TOO_LARGE");
    case "FST_ERR_NOT_FOUND":
      return new DomainError("NOT_FOUND");
    case "FST_ERR_BAD_URL":
    case "FST_ERR_MAX_PARAM_LENGTH":
      return new DomainError("MALFORMED_REQUEST", "http.url_malformed");
    default: {
      const status = (error as FastifyError).statusCode ?? 500;
      return status < 500 ? malformed() : error;
    }
  }
}

function malformed(): DomainError {
  return new DomainError("MALFORMED_REQUEST", "http.body_not_json");
}

/**
 * The raw HTTP answer to a request Node's parser refused (headers too large, a header Node cannot
 * read, too slow): the envelope too, with the status Fastify's default handler would use.
 */
export function clientErrorResponse(error: { code?: string }): string {
  const { status, message } =
    error.code === "ERR_HTTP_REQUEST_TIMEOUT"
      ? { status: 408, message: "http.too_slow" as const }
      : error.code === "HPE_HEADER_OVERFLOW"
        ? { status: 431, message: "http.headers_too_large" as const }
        : { status: 400, message: "http.not_http" as const };
  const envelope = toErrorEnvelope(new DomainError("MALFORMED_REQUEST", message, { status }));
  const body = JSON.stringify(envelope.body);
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n${body}`;
}
