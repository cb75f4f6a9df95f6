/** What the SMS area needs from the composition root, and its requests' context. */
import type { Database } from "@mteja/db";
import type { DomainConfig } from "../shared/config.js";
import type { Limiter } from "../shared/limiter.js";
import type { Clock, Logger } from "../shared/ports.js";
import type { TenantCtx as TenantCtxOf } from "../shared/request-context.js";

export interface SmsPorts {
  db: Database;
  config: DomainConfig;
  clock: Clock;
  limiter: Limiter;
  logger: Logger;
}

export type TenantCtx = TenantCtxOf<SmsPorts>;
