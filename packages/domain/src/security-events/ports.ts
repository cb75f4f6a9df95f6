/** What the security-events area needs from the composition root, and its requests' context. */
import type { Database } from "@mteja/db";
import type { Clock, Random } from "../shared/ports.js";
import type { AuthedCtx as AuthedCtxOf, RequestCtx, TenantCtx as TenantCtxOf } from "../shared/request-context.js";

export interface SecurityEventPorts {
  db: Database;
  clock: Clock;
  random: Random;
}

export type Context = RequestCtx<SecurityEventPorts>;
export type TenantCtx = TenantCtxOf<SecurityEventPorts>;
export type AuthedCtx = AuthedCtxOf<SecurityEventPorts>;
