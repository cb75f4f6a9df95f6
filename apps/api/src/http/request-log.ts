/**
 * Structured request logs: which fields are redacted, how a request is serialised, and the request
 * id that every line written while serving a request carries (`reqId`), including lines the domain
 * writes through deps.logger, which is not a per-request logger.
 */
import pino from "pino";
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from "fastify";

/** Secrets by field name, at any of the first three levels of a log object (pino's redact has no deep wildcard). */
const secretFields = [
  "password",
  "current_password",
  "new_password",
  "access_token",
  "refresh_token",
  "otp_token",
  "guest_token",
  "recovery_codes",
  "secret",
  "authorization",
  "cookie",
  // Daraja credentials and the signed fields of its requests.
  "consumerKey",
  "consumerSecret",
  "passkey",
  "Password",
  "SecurityCredential",
  "securityCredential",
  "initiatorPassword",
  "InitiatorPassword",
];

export const redactPaths: string[] = [
  "req.headers.authorization",
  "req.headers.cookie",
  'res.headers["set-cookie"]',
  ...secretFields.flatMap((field) => [field, `*.${field}`, `*.*.${field}`]),
  // Too common as plain words at the top level ({ token: "missing" } describes, it does not carry).
  ...["token", "code"].flatMap((field) => [`*.${field}`, `*.*.${field}`]),
];

/** Query parameters whose values never reach a log line (callback URLs carry `?token=`). */
const secretQuery =
  /^(token|secret|password|code|key|api_key|access_token|refresh_token|otp_token|guest_token|signature)$/i;

export function redactUrl(url: string): string {
  const queryAt = url.indexOf("?");
  if (queryAt === -1) return url;
  const params = new URLSearchParams(url.slice(queryAt + 1));
  let changed = false;
  for (const key of new Set(params.keys())) {
    if (secretQuery.test(key)) {
      params.set(key, "[redacted]");
      changed = true;
    }
  }
  return changed ? `${url.slice(0, queryAt)}?${params.toString()}` : url;
}

export const logSerializers = {
  req(request: FastifyRequest) {
    return {
      method: request.method,
      url: redactUrl(request.url),
      host: request.host,
      remoteAddress: request.ip,
      userAgent: request.headers["user-agent"],
    };
  },
  res(reply: { statusCode: number }) {
    return { statusCode: reply.statusCode };
  },
  /**
   * An error's `code` (EADDRINUSE, P1001) names what failed, but every `code` field is redacted because a
   * one-time code may travel under that name: the error's goes out as `errorCode`, which is not.
   */
  err(error: Error) {
    const { code, ...serialized } = pino.stdSerializers.err(error) as ReturnType<typeof pino.stdSerializers.err> & { code?: unknown };
    return code === undefined ? serialized : { ...serialized, errorCode: code };
  },
};

/**
 * Echoes each request's id in the X-Request-Id response header. Lines the domain writes while
 * serving a request carry the id because its context's logger is the request's child logger
 * (http/context.ts), not through async-local storage, whose promise hooks tax every request.
 */
export function installRequestScope(app: FastifyInstance): void {
  app.addHook("onRequest", (request, reply, done) => {
    void reply.header("X-Request-Id", request.id);
    done();
  });
}
