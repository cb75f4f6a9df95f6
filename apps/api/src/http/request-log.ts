/**
 * Structured request logs: which fields are redacted, how a request is serialised, and the request
 * id that every line written while serving a request carries (`reqId`), including lines the domain
 * writes through deps.logger, which is not a per-request logger.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from "fastify";

interface RequestScope {
  reqId: string;
  log: FastifyBaseLogger;
}

// One store for the process: the value lives per async context (per request), never shared across them.
const requestScope = new AsyncLocalStorage<RequestScope>();

/** Secrets by field name, at any of the first three levels of a log object (pino's redact has no deep wildcard). */
const secretFields = [
  "password",
  "current_password",
  "new_password",
  "access_token",
  "refresh_token",
  "otp_token",
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
const secretQuery = /^(token|secret|password|code|key|api_key|access_token|refresh_token|otp_token|signature)$/i;

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
};

/** Adds the request id to lines of loggers other than the request's own (which already binds it). */
export function requestIdMixin(_object: object, _level: number, logger: unknown): Record<string, string> {
  const scope = requestScope.getStore();
  return scope && logger !== scope.log ? { reqId: scope.reqId } : {};
}

/** Runs each request inside its scope and echoes its id in the X-Request-Id response header. */
export function installRequestScope(app: FastifyInstance): void {
  app.addHook("onRequest", (request, reply, done) => {
    void reply.header("X-Request-Id", request.id);
    requestScope.run({ reqId: request.id, log: request.log }, done);
  });
}
