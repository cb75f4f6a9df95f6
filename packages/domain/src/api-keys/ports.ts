/** What the API-keys area needs from the composition root, and its requests' context. */
import type { Database } from "@mteja/db";
import type { Clock, Random } from "../shared/ports.js";
import type { RequestCtx } from "../shared/request-context.js";
import type { TenantDirectory } from "../shared/tenant.js";
import type { AccessTokens } from "../auth/tokens/access-tokens.js";

export interface ApiKeyPorts {
  db: Database;
  clock: Clock;
  random: Random;
  tenants: TenantDirectory;
  /** Tells a customer's access token presented as a key apart (403, not 401). */
  tokens: AccessTokens;
}

export type Context = RequestCtx<ApiKeyPorts>;
