/**
 * The context of every procedure, as the API layer assembles it: the request, and the ports of every
 * area in one object (`Deps`, built once by the composition root, apps/api/src/runtime/services.ts).
 * Each area names only what it needs (its `ports.ts`); `Deps` satisfies them all.
 */
import type { AddressPorts } from "./addresses/ports.js";
import type { ApiKeyPorts } from "./api-keys/ports.js";
import type { AuthPorts } from "./auth/ports.js";
import type { DataRightsPorts } from "./data-rights/ports.js";
import type { IntentPorts } from "./intents/ports.js";
import type { PaymentPorts } from "./payments/shared/ports.js";
import type { ProfilePorts } from "./profile/ports.js";
import type { ReportPorts } from "./reports/ports.js";
import type { DomainEvents } from "./shared/events.js";
import type { RequestCtx } from "./shared/request-context.js";
import type { TenantPorts } from "./tenants/ports.js";
import type { WebhookPorts } from "./webhooks/ports.js";

export type { CookieOptions, RequestInfo } from "./shared/request.js";
export type { Logger } from "./shared/ports.js";

/** Long-lived services, built once by the composition root: every area's ports. */
export interface Deps
  extends AuthPorts,
    ProfilePorts,
    AddressPorts,
    ApiKeyPorts,
    WebhookPorts,
    IntentPorts,
    PaymentPorts,
    TenantPorts,
    DataRightsPorts,
    ReportPorts {
  /** What the domain reports as it happens (sign-in outcomes), counted by the composition root. */
  events: DomainEvents;
}

export type Context = RequestCtx<Deps>;
