/**
 * What a procedure's code is given (the context): the request, the ports of its area (`deps`, built
 * once by the composition root) and, once the procedure ladder (trpc.ts) has checked them, the tenant
 * with its scoped data client and the caller. Generic over the ports, so each area names only the
 * ports it needs (its `ports.ts`) and the full set, which satisfies every area's, is assembled in the
 * API layer (context.ts).
 */
import type { TenantDb } from "@mteja/db";
import type { RequestInfo } from "./request.js";
import type { Tenant } from "./tenant.js";

/** A verified access token's claims: the user, the tenant, the session and the user's role. */
export interface AccessClaims {
  sub: string;
  tid: string;
  sid: string;
  role: string | null;
}

/** Any request, before a tenant is known. */
export interface RequestCtx<Ports> {
  deps: Ports;
  request: RequestInfo;
}

/** The context of a procedure with a tenant: the tenant and its scoped data client. */
export type TenantCtx<Ports> = RequestCtx<Ports> & { tenant: Tenant; db: TenantDb };

/** The context of a procedure with a tenant and a verified access token of it. */
export type AuthedCtx<Ports> = TenantCtx<Ports> & { auth: AccessClaims };

/** Who called an operation that a shop's server and its admins may both call (`ctx.caller`). */
export type ShopCaller = { kind: "apiKey"; id: string } | { kind: "admin"; id: string };

/**
 * The context of serverOrAdminProcedure; `livemode` is the mode its data client is scoped to (the key's,
 * live for an admin: docs/test-mode.md).
 */
export type ShopCallerCtx<Ports> = TenantCtx<Ports> & { caller: ShopCaller; livemode: boolean };

/** The context of serverProcedure: a shop's server, its key's mode (`livemode`) scoping its data client. */
export type ServerCtx<Ports> = TenantCtx<Ports> & { livemode: boolean };
