/**
 * What the payments area (shared folder, flows, dispatcher, reconciler) needs from the composition root,
 * and its requests' context.
 */
import type { Database } from "@mteja/db";
import type { DomainConfig } from "../../shared/config.js";
import type { Limiter } from "../../shared/limiter.js";
import type { Clock, Logger, Random } from "../../shared/ports.js";
import type { AuthedCtx as AuthedCtxOf, RequestCtx, ShopCallerCtx as ShopCallerCtxOf, TenantCtx as TenantCtxOf } from "../../shared/request-context.js";
import type { TenantDirectory } from "../../shared/tenant.js";
import type { WebhookDeps } from "../../webhooks/webhook-deps.js";
import type { DarajaPorts } from "./daraja-ports.js";

export interface PaymentPorts {
  db: Database;
  config: DomainConfig;
  clock: Clock;
  random: Random;
  logger: Logger;
  limiter: Limiter;
  tenants: TenantDirectory;
  /** M-Pesa (Daraja) clients, callback settings and payment status events. */
  daraja: DarajaPorts;
  /** The webhook delivery worker's nudge, after a settlement wrote its event. */
  webhooks: WebhookDeps;
}

export type Context = RequestCtx<PaymentPorts>;
export type TenantCtx = TenantCtxOf<PaymentPorts>;
export type AuthedCtx = AuthedCtxOf<PaymentPorts>;
export type ShopCallerCtx = ShopCallerCtxOf<PaymentPorts>;
