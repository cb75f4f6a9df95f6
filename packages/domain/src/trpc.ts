/**
 * tRPC setup (after create-t3-turbo's packages/api/src/trpc.ts): the context type, the error
 * formatter both transports share, and the procedure builders every router uses:
 *
 * - publicProcedure     no tenant, no token (health-like and callback-free operations)
 * - tenantProcedure     X-Tenant-ID required and resolved (the public auth API)
 * - authProcedure       X-Tenant-ID + bearer token of that tenant + live session (Auth Required auth API)
 * - protectedProcedure  bearer token; tenant from the token; X-Tenant-ID optional but must match
 * - adminProcedure      protectedProcedure with role "admin"
 * - adminApiProcedure   Authorization: Bearer $ADMIN_API_KEY (the operator's admin API)
 * - serverProcedure     Authorization: Bearer mk_… (a tenant's API key: a shop's server); tenant from the key
 * - refreshCookieProcedure  tenantProcedure whose credential is the refresh cookie (read by the service)
 *
 * Every builder with a tenant also puts that tenant's scoped data client on the context (`ctx.db`,
 * docs/tenants.md#data-scoping): procedures read and write tenant-owned rows through it only.
 *
 * Each builder declares the credential it checks (`meta.credential`, operation-meta.ts); a router adds
 * the rest of an operation's facts (`ipLimited`, `successStatus`, `signInStep`, `openapi`) in its `.meta()`.
 */
import { initTRPC } from "@trpc/server";
import type { TenantDb } from "@mteja/db";
import type { Context } from "./context.js";
import { DomainError, toErrorEnvelope, toTrpcError } from "./errors.js";
import type { OperationMeta } from "./operation-meta.js";
import type { AccessClaims } from "./auth/tokens/access-tokens.js";
import { countAuthRequest } from "./core/abuse-limits.js";
import { equalsConstantTime } from "./core/secrets.js";
import { assertLiveSession } from "./auth/sessions/sessions.js";
import type { Tenant } from "./tenants/directory.js";
import { authenticateApiKey } from "./api-keys/credential.js";
import { looksLikeApiKey } from "./api-keys/keys.js";

/** The context of a procedure with a tenant: the tenant and its scoped data client. */
export type TenantCtx = Context & { tenant: Tenant; db: TenantDb };

/** The context of a procedure with a tenant and a verified access token of it. */
export type AuthedCtx = TenantCtx & { auth: AccessClaims };

const t = initTRPC
  .context<Context>()
  .meta<OperationMeta>()
  .create({
    errorFormatter({ shape, error }) {
      const envelope = toErrorEnvelope(error);
      return {
        ...shape,
        message: envelope.body.message,
        success: false as const,
        error: envelope.body.error,
        data: { ...shape.data, httpStatus: envelope.status, retryAfter: envelope.retryAfter },
      };
    },
  });

export const createTRPCRouter = t.router;
export const createCallerFactory = t.createCallerFactory;
export const mergeRouters = t.mergeRouters;

/** DomainErrors leave as TRPCErrors whose tRPC code matches their HTTP status. */
const domainErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof DomainError) {
    const error = toTrpcError(result.error.cause);
    return { ...result, error };
  }
  return result;
});

/**
 * The per-IP request limit of the unauthenticated auth operations (docs/limits.md), declared on the
 * procedure (`ipLimited`) so both transports and tRPC batches count alike.
 */
const authRequestsPerIp = t.middleware(async ({ ctx, meta, next }) => {
  if (meta?.ipLimited) await countAuthRequest(ctx);
  return next();
});

/**
 * Reports the outcome of a sign-in step (`signInStep`) through deps.events: success, requires_otp, or
 * the error code the caller receives (tenant, input and limit errors included).
 */
const signInOutcomes = t.middleware(async ({ ctx, meta, next }) => {
  const step = meta?.signInStep;
  if (!step) return next();
  const result = await next();
  ctx.deps.events.signIn({ step, outcome: result.ok ? successOutcome(result.data) : errorOutcome(result.error) });
  return result;
});

function successOutcome(data: unknown): string {
  return (data as { data?: { requires_otp?: unknown } } | undefined)?.data?.requires_otp === true ? "requires_otp" : "success";
}

function errorOutcome(error: unknown): string {
  const code = toErrorEnvelope(error).body.error.code;
  return /^[A-Z_]{1,40}$/.test(code) ? code.toLowerCase() : "error";
}

export const publicProcedure = t.procedure.meta({ credential: "none" }).use(signInOutcomes).use(domainErrors).use(authRequestsPerIp);

export const tenantProcedure = publicProcedure.use(async ({ ctx, next }) => {
  const tenant = await requireTenantHeader(ctx);
  return next({ ctx: withTenant(ctx, tenant) });
});

export const authProcedure = tenantProcedure.meta({ credential: "bearer" }).use(async ({ ctx, next }) => {
  const auth = await verifyBearer(ctx);
  if (auth.tid !== ctx.tenant.id) throw new DomainError("INVALID_TOKEN", "The access token is not valid for this tenant.");
  await assertLiveSession(ctx.deps, auth);
  return next({ ctx: { auth } });
});

/** Like authProcedure but leaves the session check to the procedure (GET /me joins it into its one query). */
export const authTokenProcedure = tenantProcedure.meta({ credential: "bearer" }).use(async ({ ctx, next }) => {
  const auth = await verifyBearer(ctx);
  if (auth.tid !== ctx.tenant.id) throw new DomainError("INVALID_TOKEN", "The access token is not valid for this tenant.");
  return next({ ctx: { auth } });
});

export const protectedProcedure = publicProcedure.meta({ credential: "bearer" }).use(async ({ ctx, next }) => {
  const auth = await verifyBearer(ctx);
  const header = ctx.request.tenantHeader?.trim();
  if (header && header !== auth.tid) throw new DomainError("INVALID_TOKEN", "The access token is not valid for this tenant.");
  const tenant = await ctx.deps.tenants.find(auth.tid);
  if (!tenant) throw new DomainError("INVALID_TOKEN", "The access token is not valid for this tenant.");
  await assertLiveSession(ctx.deps, auth);
  return next({ ctx: { auth, ...withTenant(ctx, tenant) } });
});

export const adminProcedure = protectedProcedure.use(async ({ ctx, next }) => {
  if (ctx.auth.role !== "admin") throw new DomainError("FORBIDDEN", "This operation needs the admin role.");
  return next();
});

export const adminApiProcedure = publicProcedure.meta({ credential: "adminKey" }).use(async ({ ctx, next }) => {
  const key = ctx.deps.config.adminApiKey;
  // Without ADMIN_API_KEY the admin API does not exist (docs/tenants.md#admin-api); nor, for the network, with the dev start's known key.
  if (!key || (ctx.deps.config.adminApiKeyLoopbackOnly && !ctx.request.directLoopback)) throw new DomainError("NOT_FOUND", "Not found.");
  const presented = bearerToken(ctx.request.authorization);
  if (!presented) throw new DomainError("AUTH_REQUIRED", "The admin API key is required.");
  if (!equalsConstantTime(presented, key)) throw new DomainError("INVALID_TOKEN", "The admin API key is not valid.");
  return next();
});

/**
 * A shop's server: its API key names the tenant (X-Tenant-ID optional but must match). A customer's
 * access token here answers 403, as an API key does on the bearer builders above.
 */
export const serverProcedure = publicProcedure.meta({ credential: "apiKey" }).use(async ({ ctx, next }) => {
  const presented = bearerToken(ctx.request.authorization);
  if (!presented) throw new DomainError("AUTH_REQUIRED", "An API key is required (Authorization: Bearer mk_…).");
  const { tenant, apiKey } = await authenticateApiKey(ctx, presented);
  return next({ ctx: { ...withTenant(ctx, tenant), apiKey } });
});

/** The refresh cookie is read by the service (refresh, logout): nothing to check before it runs. */
export const refreshCookieProcedure = tenantProcedure.meta({ credential: "refreshCookie" });

function withTenant(ctx: Context, tenant: Tenant): Pick<TenantCtx, "tenant" | "db"> {
  return { tenant, db: ctx.deps.db.forTenant(tenant.id) };
}

async function requireTenantHeader(ctx: Context): Promise<Tenant> {
  const id = ctx.request.tenantHeader?.trim();
  if (!id) throw new DomainError("TENANT_REQUIRED", "The X-Tenant-ID header is required.");
  const tenant = await ctx.deps.tenants.find(id);
  if (!tenant) throw new DomainError("TENANT_NOT_FOUND", "No active tenant has this X-Tenant-ID.");
  return tenant;
}

async function verifyBearer(ctx: Context): Promise<AccessClaims> {
  const token = bearerToken(ctx.request.authorization);
  if (!token) throw new DomainError("AUTH_REQUIRED", "An access token is required (Authorization: Bearer <token>).");
  if (looksLikeApiKey(token)) throw new DomainError("FORBIDDEN", "This operation takes a customer's access token, not an API key.");
  return ctx.deps.tokens.verify(token);
}

function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}
