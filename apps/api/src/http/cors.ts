/**
 * CORS (docs/http.md#cors): only listed origins get CORS headers, with credentials.
 * The list is CORS_ORIGINS plus each tenant's `settings.corsOrigins`:
 * - a request naming its shop (X-Tenant-ID) is allowed the process list plus that shop's origins;
 * - a preflight carries no header values, so it is allowed any shop's origins — it only lets the
 *   browser send the request, whose answer is then judged with its tenant.
 */
import cors, { type FastifyCorsOptions } from "@fastify/cors";
import type { Database } from "@mteja/db";
import type { Clock, TenantDirectory } from "@mteja/domain";
import type { FastifyInstance, FastifyRequest } from "fastify";

export interface CorsOptions {
  origins: readonly string[];
  db: Database;
  tenants: TenantDirectory;
  /** How long the union of every shop's origins is cached (ms). */
  ttlMs?: number;
  clock: Pick<Clock, "monotonicMs">;
}

const base: FastifyCorsOptions = {
  credentials: true,
  methods: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"],
  allowedHeaders: ["Content-Type", "Authorization", "X-Tenant-ID", "Idempotency-Key", "X-Request-Id", "Last-Event-ID", "trpc-accept"],
  exposedHeaders: ["X-Request-Id", "Retry-After"],
  maxAge: 600,
};

/** "https://shop.example.com/" and "https://shop.example.com" are the same origin. */
const normalise = (origin: string) => {
  try {
    return new URL(origin).origin;
  } catch {
    return origin;
  }
};

export async function installCors(app: FastifyInstance, options: CorsOptions): Promise<void> {
  const processOrigins = new Set(options.origins.map(normalise));
  const ttlMs = options.ttlMs ?? 30_000;
  const now = () => options.clock.monotonicMs();
  let anyTenant: { origins: Set<string>; expires: number } | undefined;

  const tenantOrigins = (settings: unknown): string[] => {
    const list = (settings as { corsOrigins?: unknown } | null)?.corsOrigins;
    return Array.isArray(list) ? list.filter((o): o is string => typeof o === "string").map(normalise) : [];
  };

  const everyTenantsOrigins = async (): Promise<Set<string>> => {
    if (anyTenant && anyTenant.expires > now()) return anyTenant.origins;
    const rows = await options.db.prisma.tenant.findMany({ where: { active: true }, select: { settings: true } });
    anyTenant = { origins: new Set(rows.flatMap((row) => tenantOrigins(row.settings))), expires: now() + ttlMs };
    return anyTenant.origins;
  };

  const isAllowed = async (request: FastifyRequest, origin: string): Promise<boolean> => {
    if (processOrigins.has(origin)) return true;
    const tenantId = request.headers["x-tenant-id"];
    if (request.method === "OPTIONS") return (await everyTenantsOrigins()).has(origin);
    if (typeof tenantId !== "string") return false;
    const tenant = await options.tenants.find(tenantId);
    return tenant ? tenantOrigins(tenant.settings).includes(origin) : false;
  };

  await app.register(cors, {
    delegator: async (request: FastifyRequest): Promise<FastifyCorsOptions> => {
      const origin = request.headers.origin;
      const allowed = typeof origin === "string" && (await isAllowed(request, normalise(origin)).catch(() => false));
      return { ...base, origin: allowed ? origin : false };
    },
  });
}
