/** What the addresses area needs from the composition root, and its requests' context. */
import type { Clock, Random } from "../shared/ports.js";
import type { AuthedCtx as AuthedCtxOf } from "../shared/request-context.js";

export interface AddressPorts {
  clock: Clock;
  random: Random;
}

export type AuthedCtx = AuthedCtxOf<AddressPorts>;
