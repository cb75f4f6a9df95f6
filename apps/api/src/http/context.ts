import type { Context, Deps } from "@mteja/domain";
import type { FastifyReply, FastifyRequest } from "fastify";
import { isLocalRequest } from "./loopback.js";

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function withLogger(deps: Deps, logger: Deps["logger"]): Deps {
  const own: Deps = Object.create(deps);
  own.logger = logger;
  return own;
}

/** Builds the domain's view of a request from Fastify's (same for the tRPC and REST mounts). */
export function createRequestContext(deps: Deps, request: FastifyRequest, reply: FastifyReply): Context {
  let accepted = false;
  return {
    // The domain logs through the request's child logger, so its lines carry the request id. The
    // rest of deps is inherited, not copied: one small object per request instead of a copy of every service.
    deps: withLogger(deps, request.log),
    request: {
      tenantHeader: header(request, "x-tenant-id"),
      authorization: header(request, "authorization"),
      idempotencyKey: header(request, "idempotency-key"),
      ip: request.ip,
      localRequest: isLocalRequest(request),
      userAgent: header(request, "user-agent"),
      origin: `${request.protocol}://${request.host}`,
      acceptLanguage: header(request, "accept-language"),
      getCookie: (name) => request.cookies[name],
      setCookie: (name, value, options) => void reply.setCookie(name, value, options),
      clearCookie: (name, options) => void reply.clearCookie(name, options),
      setHeader: (name, value) => void reply.header(name, value),
      markAccepted: () => {
        accepted = true;
      },
      isAccepted: () => accepted,
    },
  };
}
