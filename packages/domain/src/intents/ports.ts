/** What the payment intents area needs from the composition root, and its requests' context. */
import type { Database } from "@mteja/db";
import type { Clock, Logger, Random } from "../shared/ports.js";
import type { AuthedCtx as AuthedCtxOf, TenantCtx as TenantCtxOf } from "../shared/request-context.js";

export interface IntentPorts {
  db: Database;
  clock: Clock;
  random: Random;
  logger: Logger;
}

export type TenantCtx = TenantCtxOf<IntentPorts>;
export type AuthedCtx = AuthedCtxOf<IntentPorts>;
