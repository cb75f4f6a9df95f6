/** A shop's webhook endpoints (docs/webhooks.md#endpoints), managed with its API key. */
import type { WebhookEndpointModel } from "@mteja/db";
import { noStore } from "../auth/sessions/refresh-cookie.js";
import { DomainError } from "../errors.js";
import type { TenantCtx } from "../trpc.js";
import { webhookEventTypes, type WebhookEventType } from "./event-types.js";
import { newEndpointSecret, previousSecretOverlapMs } from "./endpoint-secrets.js";
import { maxEndpointsPerTenant } from "./schemas.js";
import { storedEventTypes } from "./subscriptions.js";

const notFound = () => new DomainError("NOT_FOUND", "not_found.webhook_endpoint");

export function endpointView(row: WebhookEndpointModel) {
  return {
    id: row.id,
    url: row.url,
    events: storedEventTypes(row.events),
    enabled: row.enabled,
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
  const created = await ctx.db.$transaction(async (tx) => {
    const live = await tx.webhookEndpoint.count({ where: { deletedAt: null } });
    if (live >= maxEndpointsPerTenant) return undefined;
    return tx.webhookEndpoint.create({
      data: {
        id: ctx.deps.random.uuid(),
        tenantId: ctx.tenant.id,
        url: input.url,
        events: input.events ?? [...webhookEventTypes],
        secretSealed: ctx.deps.cipher.encrypt(secret),
        createdAt: now,
        updatedAt: now,
      },
    });
  });
  if (!created) {
    throw new DomainError("VALIDATION_ERROR", { key: "limits.webhook_endpoints", params: { max: maxEndpointsPerTenant } }, {
      details: [{ path: "url", message: { key: "detail.webhook_endpoints_full", params: { max: maxEndpointsPerTenant } } }],
    });
  }
  noStore(ctx);
  return { id: created.id, url: created.url, events: storedEventTypes(created.events), secret, created_at: created.createdAt.toISOString() };
}

/** Oldest first (the order they were added in), keyset on the id of the last one shown. */
export async function listEndpoints(ctx: TenantCtx, page: { limit: number; cursor?: string | undefined }) {
  const after = page.cursor ? await ctx.db.webhookEndpoint.findFirst({ where: { id: asUuid(page.cursor), deletedAt: null } }) : null;
  if (page.cursor && !after) {
    throw new DomainError("VALIDATION_ERROR", undefined, { details: [{ path: "cursor", message: "detail.cursor" }] });
  }
  const rows = await ctx.db.webhookEndpoint.findMany({
    where: { deletedAt: null, ...(after ? { OR: [{ createdAt: { gt: after.createdAt } }, { createdAt: after.createdAt, id: { gt: after.id } }] } : {}) },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: page.limit + 1,
  });
  const shown = rows.slice(0, page.limit);
  const last = shown[shown.length - 1];
  return { webhook_endpoints: shown.map(endpointView), next_cursor: rows.length > page.limit && last ? last.id : null };
}

function asUuid(text: string): string {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(text) ? text : "00000000-0000-0000-0000-000000000000";
}

async function liveEndpoint(ctx: TenantCtx, id: string): Promise<WebhookEndpointModel> {
  const row = await ctx.db.webhookEndpoint.findFirst({ where: { id, deletedAt: null } });
  if (!row) throw notFound();
  return row;
}

export async function updateEndpoint(ctx: TenantCtx, input: { id: string; enabled?: boolean | undefined; events?: WebhookEventType[] | undefined }) {
  await liveEndpoint(ctx, input.id);
  const updated = await ctx.db.webhookEndpoint.update({
    where: { id: input.id },
    data: { ...(input.enabled !== undefined ? { enabled: input.enabled } : {}), ...(input.events ? { events: input.events } : {}), updatedAt: ctx.deps.clock.now() },
  });
  return endpointView(updated);
}

/** Deleted endpoints stay (their attempts remain listed) but get nothing more; the worker drops what they were owed. */
export async function deleteEndpoint(ctx: TenantCtx, id: string): Promise<void> {
  const now = ctx.deps.clock.now();
  const { count } = await ctx.db.webhookEndpoint.updateMany({ where: { id, deletedAt: null }, data: { deletedAt: now, enabled: false, updatedAt: now } });
  if (count === 0) throw notFound();
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
    const { count } = await ctx.db.webhookEndpoint.updateMany({
      where: { id, deletedAt: null, secretSealed: endpoint.secretSealed },
      data: { secretSealed: sealed, previousSecretSealed: endpoint.secretSealed, previousSecretExpiresAt, updatedAt: now },
    });
    if (count === 0) continue;
    noStore(ctx);
    return { id, secret, previous_secret_expires_at: previousSecretExpiresAt.toISOString() };
  }
}
