/**
 * CORS (docs/http.md#cors): only listed origins get CORS headers, with credentials.
 * The list is CORS_ORIGINS plus each tenant's `settings.corsOrigins`:
 * - a request naming its shop (X-Tenant-ID) is allowed the process list plus that shop's origins;
 * - a preflight carries no header values, so it is allowed any shop's origins — it only lets the
 *   browser send the request, whose answer is then judged with its tenant.
 */
import cors, { type FastifyCorsOptions } from "@fastify/cors";
import { corsOriginsOf, normaliseOrigin, type TenantDirectory } from "@mteja/domain";
import type { FastifyInstance, FastifyRequest } from "fastify";

export interface CorsOptions {
  origins: readonly string[];
  tenants: TenantDirectory;
}

const base: FastifyCorsOptions = {
  credentials: true,
  methods: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"],
  allowedHeaders: ["Content-Type", "Authorization", "X-Tenant-ID", "Idempotency-Key", "X-Captcha-Token", "X-Request-Id", "Last-Event-ID", "trpc-accept"],
  exposedHeaders: ["X-Request-Id", "Retry-After", "Deprecation", "Sunset"],
  maxAge: 600,
};

export async function installCors(app: FastifyInstance, options: CorsOptions): Promise<void> {
  const processOrigins = new Set(options.origins.map(normaliseOrigin));

  const isAllowed = async (request: FastifyRequest, origin: string): Promise<boolean> => {
    if (processOrigins.has(origin)) return true;
    const tenantId = request.headers["x-tenant-id"];
    if (request.method === "OPTIONS") return (await options.tenants.everyCorsOrigin()).has(origin);
    if (typeof tenantId !== "string") return false;
    const tenant = await options.tenants.find(tenantId);
    return tenant ? corsOriginsOf(tenant).includes(origin) : false;
  };

  // A request without an Origin (a server, curl, the same origin's GET) gets no CORS headers: answered
  // at once with one shared options object, without a promise and a copy of the options per request.
  const noCors: FastifyCorsOptions = { ...base, origin: false };
  await app.register(cors, {
    delegator: (request: FastifyRequest, callback: (error: Error | null, options: FastifyCorsOptions) => void): void => {
      const origin = request.headers.origin;
      if (typeof origin !== "string") return callback(null, noCors);
      void isAllowed(request, normaliseOrigin(origin))
        .catch(() => false)
        .then((allowed) => callback(null, allowed ? { ...base, origin } : noCors));
    },
  });
}
