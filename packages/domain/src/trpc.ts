/**
 * tRPC setup (after create-t3-turbo's packages/api/src/trpc.ts): the context type, the error
 * formatter both transports share, and the procedure builders every router uses:
 *
 * - publicProcedure     no tenant, no token (health-like and callback-free operations)
 * - tenantProcedure     X-Tenant-ID required and resolved (the public auth API); a CAPTCHA where `meta.captcha` names its flow
 * - authProcedure       X-Tenant-ID + bearer token of that tenant + live session (Auth Required auth API)
 * - authTokenProcedure  authProcedure less the session check, which GET /me makes in its own query: the one
 *                       exception (docs/architecture.md#the-one-exception-get-me)
 * - protectedProcedure  bearer token; tenant from the token; X-Tenant-ID optional but must match
 * - adminProcedure      protectedProcedure with role "admin"
 * - adminApiProcedure   Authorization: Bearer $ADMIN_API_KEY (the operator's admin API)
 * - serverProcedure     Authorization: Bearer mk_… (a tenant's API key: a shop's server); tenant from the key
 * - serverOrAdminProcedure  a tenant's API key, or the access token of a user with role "admin" (refunds)
 * - refreshCookieProcedure  tenantProcedure whose credential is the refresh cookie (read by the service)
 *
 * Every builder with a tenant also puts that tenant's scoped data client on the context (`ctx.db`,
 * docs/tenants.md#data-scoping): procedures read and write tenant-owned rows through it only.
 *
 * A guest's token (role "guest") passes the bearer builders only on an operation that declares `guestAllowed`:
 * elsewhere 403 FORBIDDEN (auth/guest/guest-access.ts).
 *
 * Each builder declares the credential it checks (`meta.credential`, shared/operation-meta.ts); a router adds
 * the rest of an operation's facts (`ipLimited`, `successStatus`, `signInStep`, `stepUp`, `openapi`) in its `.meta()`.
 */
import { getTRPCErrorFromUnknown, initTRPC, type TRPCError } from "@trpc/server";
import type { Context, Deps } from "./context.js";
import { DomainError, toErrorEnvelope, toTrpcError } from "./shared/errors.js";
import type { OperationMeta, StepUp } from "./shared/operation-meta.js";
import type { AccessClaims, AuthedCtx as AuthedCtxOf, ShopCaller, ShopCallerCtx as ShopCallerCtxOf, TenantCtx as TenantCtxOf } from "./shared/request-context.js";
import { countAuthRequest } from "./shared/abuse-limits.js";
import { signInOutcomeOfCode } from "./shared/events.js";
import { equalsConstantTime } from "./shared/secrets.js";
import { assertLiveSession, type LiveSessionRow } from "./auth/sessions/sessions.js";
import { requireStepUp } from "./auth/step-up/require-step-up.js";
import { assertGuestMayCall } from "./auth/guest/guest-access.js";
import { requireCaptcha } from "./auth/captcha/require-captcha.js";
import type { Tenant } from "./shared/tenant.js";
import { authenticateApiKey } from "./api-keys/credential.js";
import { looksLikeApiKey } from "./api-keys/keys.js";
import { answerLocale, noteSignedInLocale } from "./shared/i18n/answer-locale.js";

/** The context of a procedure with a tenant: the tenant and its scoped data client. */
export type TenantCtx = TenantCtxOf<Deps>;

/** The context of a procedure with a tenant and a verified access token of it. */
export type AuthedCtx = AuthedCtxOf<Deps>;

const t = initTRPC
  .context<Context>()
  .meta<OperationMeta>()
  .create({
    errorFormatter({ shape, error, ctx }) {
      const envelope = toErrorEnvelope(error, answerLocale(ctx?.request));
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

/**
 * The facts an operation declares in its meta, applied by one middleware (each tRPC middleware costs a
 * copy of the call options and a promise hop, and every request runs this one):
 * - the per-IP request limit of the unauthenticated auth operations (`ipLimited`, docs/limits.md),
 *   declared on the procedure so both transports and tRPC batches count alike;
 * - DomainErrors leave as TRPCErrors whose tRPC code matches their HTTP status;
 * - the outcome of a sign-in step (`signInStep`) is reported through deps.events: success,
 *   requires_otp, or the error code the caller receives (tenant, input and limit errors included).
 */
const operationFacts = t.middleware(async ({ ctx, meta, next }) => {
  const step = meta?.signInStep;
  const reportError = (error: TRPCError) => {
    if (step) ctx.deps.events.signIn({ step, outcome: errorOutcome(error) });
    return error;
  };
  if (meta?.ipLimited) {
    try {
      await countAuthRequest(ctx);
    } catch (cause) {
      throw reportError(leavingError(getTRPCErrorFromUnknown(cause)));
    }
  }
  const result = await next();
  if (result.ok) {
    if (step) ctx.deps.events.signIn({ step, outcome: successOutcome(result.data) });
    return result;
  }
  const error = reportError(leavingError(result.error));
  return error === result.error ? result : { ...result, error };
});

function leavingError(error: TRPCError): TRPCError {
  return error.cause instanceof DomainError ? toTrpcError(error.cause) : error;
}

function successOutcome(data: unknown): string {
  return (data as { data?: { requires_otp?: unknown } } | undefined)?.data?.requires_otp === true ? "requires_otp" : "success";
}

function errorOutcome(error: unknown): string {
  return signInOutcomeOfCode(toErrorEnvelope(error).body.error.code);
}

// Each builder below checks its whole credential in one middleware after operationFacts, so no
// operation runs more than two of ours.

export const publicProcedure = t.procedure.meta({ credential: "none" }).use(operationFacts);

export const tenantProcedure = publicProcedure.use(async ({ ctx, meta, next }) => {
  const tenant = withTenant(ctx, await requireTenantHeader(ctx));
  // A flow the shop puts behind a CAPTCHA (meta.captcha): checked before the operation does any work.
  if (meta?.captcha) await requireCaptcha({ ...ctx, ...tenant }, meta.captcha);
  return next({ ctx: tenant });
});

/**
 * A browser's top-level navigation, which cannot send X-Tenant-ID (Sign in with Google's start and
 * callback): the tenant is the one the operation reads from the request itself (`tenantOf`: the header
 * or a query parameter, a sealed cookie); it may throw to refuse the request.
 */
export function navigationProcedure(tenantOf: (ctx: Context, rawInput: unknown) => string | undefined) {
  return publicProcedure.use(async ({ ctx, getRawInput, next }) => {
    return next({ ctx: withTenant(ctx, await requireTenant(ctx, tenantOf(ctx, await getRawInput()))) });
  });
}

export const authProcedure = publicProcedure.meta({ credential: "bearer" }).use(async ({ ctx, meta, getRawInput, next }) => {
  const tenant = await requireTenantHeader(ctx);
  const auth = await verifyBearerOf(ctx, tenant);
  assertGuestMayCall(auth, meta);
  const authed = { auth, ...withTenant(ctx, tenant) };
  const session = await assertLiveSession(ctx.deps, authed.db, auth);
  return signedInCall({ ...ctx, ...authed }, meta, session, getRawInput, () => next({ ctx: { ...authed, session } }));
});

/**
 * Like authProcedure but leaves the session check to the procedure: GET /me only, which joins it into the
 * query that reads the user, one round trip instead of two (docs/architecture.md#the-one-exception-get-me).
 */
export const authTokenProcedure = publicProcedure.meta({ credential: "bearer" }).use(async ({ ctx, meta, next }) => {
  const tenant = await requireTenantHeader(ctx);
  const auth = await verifyBearerOf(ctx, tenant);
  assertGuestMayCall(auth, meta);
  const authed = { auth, ...withTenant(ctx, tenant) };
  return inUsersLanguage({ ...ctx, ...authed }, next({ ctx: authed }));
});

export const protectedProcedure = publicProcedure.meta({ credential: "bearer" }).use(async ({ ctx, meta, getRawInput, next }) => {
  const { session, ...authed } = await bearerWithItsTenant(ctx);
  assertGuestMayCall(authed.auth, meta);
  return signedInCall({ ...ctx, ...authed }, meta, session, getRawInput, () => next({ ctx: { ...authed, session } }));
});

export const adminProcedure = publicProcedure.meta({ credential: "bearer" }).use(async ({ ctx, meta, getRawInput, next }) => {
  const { session, ...authed } = await bearerWithItsTenant(ctx);
  if (authed.auth.role !== "admin") {
    await noteSignedInLocale({ ...ctx, ...authed }, authed.auth.sub);
    throw new DomainError("FORBIDDEN", "access.admin_role_needed");
  }
  return signedInCall({ ...ctx, ...authed }, meta, session, getRawInput, () => next({ ctx: { ...authed, session } }));
});

/** A signed-in call that fails answers in the user's language (shared/i18n/answer-locale.ts). */
async function inUsersLanguage<R extends { ok: boolean }>(ctx: AuthedCtx, result: Promise<R>): Promise<R> {
  const settled = await result;
  if (!settled.ok) await noteSignedInLocale(ctx, ctx.auth.sub);
  return settled;
}

/**
 * The rest of a call whose session the credential check has read: its step-up, then the procedure,
 * failures answered in the user's language. This is the one place `meta.stepUp` is read
 * (docs/step-up.md): a sensitive operation runs on a fresh session, or on a complete proof in its body,
 * else answers 403 STEP_UP_REQUIRED. The freshness comes with the session row already read, so an
 * operation that declares no step-up does no work for it.
 */
function signedInCall<R extends { ok: boolean }>(ctx: AuthedCtx, meta: OperationMeta | undefined, session: LiveSessionRow, rawInput: () => Promise<unknown>, run: () => Promise<R>): Promise<R> {
  return inUsersLanguage(ctx, meta?.stepUp ? stepUpThen(ctx, meta.stepUp, session, rawInput, run) : run());
}

async function stepUpThen<R>(ctx: AuthedCtx, rule: StepUp, session: LiveSessionRow, rawInput: () => Promise<unknown>, run: () => Promise<R>): Promise<R> {
  try {
    await requireStepUp(ctx, rule, session, rawInput);
  } catch (error) {
    await noteSignedInLocale(ctx, ctx.auth.sub);
    throw error;
  }
  return run();
}

export const adminApiProcedure = publicProcedure.meta({ credential: "adminKey" }).use(async ({ ctx, next }) => {
  const key = ctx.deps.config.adminApiKey;
  // Without ADMIN_API_KEY the admin API does not exist (docs/tenants.md#admin-api); nor, for the network, with the dev start's known key.
  if (!key || (ctx.deps.config.adminApiKeyLoopbackOnly && !ctx.request.localRequest)) throw new DomainError("NOT_FOUND");
  const presented = bearerToken(ctx.request.authorization);
  if (!presented) throw new DomainError("AUTH_REQUIRED", "access.admin_key_required");
  if (!equalsConstantTime(presented, key)) throw new DomainError("INVALID_TOKEN", "access.admin_key_invalid");
  return next();
});

/**
 * A shop's server: its API key names the tenant (X-Tenant-ID optional but must match). A customer's
 * access token here answers 403, as an API key does on the bearer builders above.
 */
export const serverProcedure = publicProcedure.meta({ credential: "apiKey" }).use(async ({ ctx, meta, next }) => {
  const presented = bearerToken(ctx.request.authorization);
  if (!presented) throw new DomainError("AUTH_REQUIRED", "access.api_key_required");
  const { tenant, apiKey } = await authenticateApiKey(ctx, presented);
  refuseTestKeyWhereLiveOnly(meta, apiKey.livemode);
  return next({ ctx: { ...withTenantMode(ctx, tenant, apiKey.livemode), apiKey } });
});

/**
 * Test mode (docs/test-mode.md): a key's requests see and write its mode's rows only, because the data
 * client on their context is scoped to the mode as it is to the tenant (`Database.forTenant`), and
 * `ctx.livemode` says which mode that is. A read added later through `ctx.db` cannot forget it.
 */
function withTenantMode(ctx: Context, tenant: Tenant, livemode: boolean): Pick<TenantCtx, "tenant" | "db"> & { livemode: boolean } {
  return { tenant, db: ctx.deps.db.forTenant(tenant.id, { livemode }), livemode };
}

/** An operation that moves live money only (`meta.liveOnly`: C2B, Pull, QR, balance) refuses a test key. */
function refuseTestKeyWhereLiveOnly(meta: OperationMeta | undefined, livemode: boolean): void {
  if (meta?.liveOnly && !livemode) throw new DomainError("FORBIDDEN", "access.live_only");
}

/**
 * A shop's server or one of its admins: an API key (as serverProcedure) or an access token with role
 * "admin" (as adminProcedure; a customer's token answers 403). The tenant is the credential's.
 */
export const serverOrAdminProcedure = publicProcedure.meta({ credential: "apiKeyOrAdmin" }).use(async ({ ctx, meta, next }) => {
  const presented = bearerToken(ctx.request.authorization);
  if (!presented) throw new DomainError("AUTH_REQUIRED", "access.api_key_or_admin_required");
  if (looksLikeApiKey(presented)) {
    const { tenant, apiKey } = await authenticateApiKey(ctx, presented);
    refuseTestKeyWhereLiveOnly(meta, apiKey.livemode);
    return next({ ctx: { ...withTenantMode(ctx, tenant, apiKey.livemode), caller: { kind: "apiKey", id: apiKey.id } as ShopCaller } });
  }
  const authed = await bearerWithItsTenant(ctx);
  if (authed.auth.role !== "admin") throw new DomainError("FORBIDDEN", "access.api_key_or_admin_needed");
  // A shop's admin signed in to the shop works on live money (docs/test-mode.md#the-modes-never-meet).
  return next({ ctx: { ...withTenantMode(ctx, authed.tenant, true), caller: { kind: "admin", id: authed.auth.sub } as ShopCaller } });
});

/** The context of serverOrAdminProcedure. */
export type ShopCallerCtx = ShopCallerCtxOf<Deps>;

/** The refresh cookie is read by the service (refresh, logout): nothing to check before it runs. */
export const refreshCookieProcedure = tenantProcedure.meta({ credential: "refreshCookie" });

/** The bearer token of the X-Tenant-ID tenant. */
async function verifyBearerOf(ctx: Context, tenant: Tenant): Promise<AccessClaims> {
  const auth = await verifyBearer(ctx);
  if (auth.tid !== tenant.id) throw new DomainError("INVALID_TOKEN", "access.token_wrong_tenant");
  return auth;
}

/** A bearer token with a live session (as read); the tenant is the token's (X-Tenant-ID optional but must match). */
async function bearerWithItsTenant(ctx: Context): Promise<Pick<AuthedCtx, "auth" | "tenant" | "db"> & { session: LiveSessionRow }> {
  const auth = await verifyBearer(ctx);
  const header = ctx.request.tenantHeader?.trim();
  if (header && header !== auth.tid) throw new DomainError("INVALID_TOKEN", "access.token_wrong_tenant");
  const tenant = await ctx.deps.tenants.find(auth.tid);
  if (!tenant) throw new DomainError("INVALID_TOKEN", "access.token_wrong_tenant");
  const scoped = withTenant(ctx, tenant);
  const session = await assertLiveSession(ctx.deps, scoped.db, auth);
  return { auth, session, ...scoped };
}

function withTenant(ctx: Context, tenant: Tenant): Pick<TenantCtx, "tenant" | "db"> {
  return { tenant, db: ctx.deps.db.forTenant(tenant.id) };
}

async function requireTenantHeader(ctx: Context): Promise<Tenant> {
  return requireTenant(ctx, ctx.request.tenantHeader?.trim());
}

async function requireTenant(ctx: Context, id: string | undefined): Promise<Tenant> {
  if (!id) throw new DomainError("TENANT_REQUIRED");
  const tenant = await ctx.deps.tenants.find(id);
  if (!tenant) throw new DomainError("TENANT_NOT_FOUND");
  return tenant;
}

async function verifyBearer(ctx: Context): Promise<AccessClaims> {
  const token = bearerToken(ctx.request.authorization);
  if (!token) throw new DomainError("AUTH_REQUIRED", "access.token_required");
  if (looksLikeApiKey(token)) throw new DomainError("FORBIDDEN", "access.customer_token_needed");
  return ctx.deps.tokens.verify(token);
}

function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}
