/** What the addresses area needs from the composition root, and its requests' context. */
import type { Database } from "@mteja/db";
import type { Clock, Random } from "../shared/ports.js";
import type { AuthedCtx as AuthedCtxOf } from "../shared/request-context.js";

export interface AddressPorts {
  /** Its transactions (`ctx.db` is the tenant's door). */
  db: Database;
  clock: Clock;
  random: Random;
}

export type AuthedCtx = AuthedCtxOf<AddressPorts>;
