/** A shop's webhook endpoints (docs/webhooks.md#endpoints), managed with its API key. */
import { webhooks, type WebhookEndpointModel } from "@mteja/db";
import { noStore } from "../shared/request.js";
import { DomainError } from "../shared/errors.js";
import type { TenantCtx } from "./ports.js";
import { webhookEventTypes, type WebhookEventType } from "./event-types.js";
import { newEndpointSecret, previousSecretOverlapMs } from "./endpoint-secrets.js";
import { endpointDisabledReasons, maxEndpointsPerTenant } from "./schemas.js";

type EndpointDisabledReason = (typeof endpointDisabledReasons)[number];
import { storedEventTypes } from "./subscriptions.js";

const notFound = () => new DomainError("NOT_FOUND", "not_found.webhook_endpoint");

function disabledReasonOf(stored: string | null): EndpointDisabledReason | null {
  return (endpointDisabledReasons as readonly string[]).includes(stored ?? "") ? (stored as EndpointDisabledReason) : null;
}

export function endpointView(row: WebhookEndpointModel) {
  return {
    id: row.id,
    livemode: row.livemode,
    url: row.url,
    events: storedEventTypes(row.events),
    enabled: row.enabled,
    disabled_reason: row.enabled ? null : disabledReasonOf(row.disabledReason),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

async function assertUsableUrl(ctx: TenantCtx, url: string): Promise<void> {
  const problem = await ctx.deps.webhooks.urlProblem(url);
  if (problem) throw new DomainError("VALIDATION_ERROR", undefined, { details: [{ path: "url", message: { key: "detail.webhook_url_refused", params: { reason: problem } } }] });
}

export async function createEndpoint(ctx: TenantCtx, input: { url: string; events?: WebhookEventType[] | undefined }) {
  await assertUsableUrl(ctx, input.url);
  const secret = newEndpointSecret(ctx.deps.random);
  const now = ctx.deps.clock.now();
  const created = await ctx.deps.db.transaction(ctx.db, async (tx) => {
    const live = await webhooks.countLiveEndpoints(tx);
    if (live >= maxEndpointsPerTenant) return undefined;
    return webhooks.createEndpoint(tx, {
      id: ctx.deps.random.uuid(),
      tenantId: ctx.tenant.id,
      url: input.url,
      events: input.events ?? [...webhookEventTypes],
      secretSealed: ctx.deps.cipher.encrypt(secret),
      at: now,
    });
  });
  if (!created) {
    throw new DomainError("VALIDATION_ERROR", { key: "limits.webhook_endpoints", params: { max: maxEndpointsPerTenant } }, {
      details: [{ path: "url", message: { key: "detail.webhook_endpoints_full", params: { max: maxEndpointsPerTenant } } }],
    });
  }
  noStore(ctx);
  const { id, livemode, url } = created;
  return { id, livemode, url, events: storedEventTypes(created.events), secret, created_at: created.createdAt.toISOString() };
}

/** Oldest first (the order they were added in), keyset on the id of the last one shown. */
export async function listEndpoints(ctx: TenantCtx, page: { limit: number; cursor?: string | undefined }) {
  const after = page.cursor ? await webhooks.findLiveEndpoint(ctx.db, asUuid(page.cursor)) : null;
  if (page.cursor && !after) {
    throw new DomainError("VALIDATION_ERROR", undefined, { details: [{ path: "cursor", message: "detail.cursor" }] });
  }
  const rows = await webhooks.liveEndpointsOldestFirst(ctx.db, { after, limit: page.limit + 1 });
  const shown = rows.slice(0, page.limit);
  const last = shown[shown.length - 1];
  return { webhook_endpoints: shown.map(endpointView), next_cursor: rows.length > page.limit && last ? last.id : null };
}

function asUuid(text: string): string {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(text) ? text : "00000000-0000-0000-0000-000000000000";
}

async function liveEndpoint(ctx: TenantCtx, id: string): Promise<WebhookEndpointModel> {
  const row = await webhooks.findLiveEndpoint(ctx.db, id);
  if (!row) throw notFound();
  return row;
}

/**
 * Setting `enabled` is the shop's decision and replaces the service's: it clears `disabled_reason` (a
 * manual disable has none), and enabling starts the count of failing days again. A disabled endpoint
 * is owed nothing more: its pending deliveries are dropped with the change.
 */
export async function updateEndpoint(ctx: TenantCtx, input: { id: string; enabled?: boolean | undefined; events?: WebhookEventType[] | undefined }) {
  await liveEndpoint(ctx, input.id);
  const now = ctx.deps.clock.now();
  const updated = await ctx.deps.db.transaction(ctx.db, async (tx) => {
    const row = await webhooks.updateEndpoint(tx, input.id, {
      ...(input.enabled !== undefined ? { enabled: input.enabled, disabledReason: null } : {}),
      ...(input.enabled === true ? { failingSince: null } : {}),
      ...(input.events ? { events: input.events } : {}),
      updatedAt: now,
    });
    if (input.enabled === false) await webhooks.dropPendingDeliveries(tx, input.id, now);
    return row;
  });
  return endpointView(updated);
}

/** Deleted endpoints stay (their attempts remain listed) but get nothing more: what they were owed is dropped. */
export async function deleteEndpoint(ctx: TenantCtx, id: string): Promise<void> {
  const now = ctx.deps.clock.now();
  const deleted = await ctx.deps.db.transaction(ctx.db, async (tx) => {
    const found = await webhooks.deleteEndpoint(tx, id, now);
    if (found) await webhooks.dropPendingDeliveries(tx, id, now);
    return found;
  });
  if (!deleted) throw notFound();
}

/**
 * A new secret; the one it replaces keeps signing (second v1) for 24 h. Compare-and-set on the sealed
 * secret: of two rotations at once, the later one replaces the earlier one's secret (which then signs as
 * the previous one), never a secret lost between them.
 */
export async function rotateEndpointSecret(ctx: TenantCtx, id: string) {
  const secret = newEndpointSecret(ctx.deps.random);
  const sealed = ctx.deps.cipher.encrypt(secret);
  for (;;) {
    const endpoint = await liveEndpoint(ctx, id);
    const now = ctx.deps.clock.now();
    const previousSecretExpiresAt = new Date(now.getTime() + previousSecretOverlapMs);
    const rotation = { id, replaces: endpoint.secretSealed, sealed, previousSecretExpiresAt, now };
    const rotated = await webhooks.rotateSecret(ctx.db, rotation);
    if (!rotated) continue;
    noStore(ctx);
    return { id, secret, previous_secret_expires_at: previousSecretExpiresAt.toISOString() };
  }
}
