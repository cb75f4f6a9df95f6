/** What the webhooks area needs from the composition root, and its requests' context. */
import type { Database } from "@mteja/db";
import type { DataCipher } from "../shared/data-cipher.js";
import type { Limiter } from "../shared/limiter.js";
import type { Clock, Logger, Random } from "../shared/ports.js";
import type { TenantCtx as TenantCtxOf } from "../shared/request-context.js";
import type { WebhookDeps } from "./webhook-deps.js";

export interface WebhookPorts {
  db: Database;
  clock: Clock;
  random: Random;
  logger: Logger;
  limiter: Limiter;
  /** Endpoint secrets at rest. */
  cipher: DataCipher;
  /** Endpoint URL checks and the delivery worker's nudge. */
  webhooks: WebhookDeps;
}

export type TenantCtx = TenantCtxOf<WebhookPorts>;
