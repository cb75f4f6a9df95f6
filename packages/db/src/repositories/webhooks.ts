/**
 * The webhook tables (docs/webhooks.md): endpoints, the event feed, each event's deliveries (one per
 * endpoint owed it) and their attempts. Events and deliveries are written in the transaction of the
 * change they report; the delivery worker claims, sends and records them.
 */
import { Prisma } from "../generated/prisma/client.js";
import type { UnscopedDb } from "../doors.js";
import type { WebhookAttemptModel, WebhookEndpointModel, WebhookEventModel } from "../generated/prisma/models.js";
import type { RawSql } from "../raw-sql.js";
import { eventWrites, type EventRow } from "./webhook-event-writes.js";
import { plainOf } from "../plain-access.js";
import { prismaOf, type AnyClient } from "./clients.js";
import { claimFairly, countsJson } from "./fair-claim.js";
import { laterThan, olderThan, type PageAfter } from "./keyset.js";

export type { PageAfter } from "./keyset.js";

// --- Events and their fan-out ------------------------------------------------------------------

export type { EventRow } from "./webhook-event-writes.js";

/** Writes the event and its deliveries inside the caller's transaction, in one statement. */
export async function recordEvent(tx: RawSql, event: EventRow): Promise<void> {
  await tx.$queryRaw`WITH ${eventWrites(event)} SELECT count(*)::int AS deliveries FROM deliveries`;
}

/** An event id (`evt_` and 32 hex digits) drawn by the database, for a caller without a random port. */
export async function drawEventId(tx: RawSql): Promise<string> {
  const [drawn] = await tx.$queryRaw<{ id: string }[]>`
    SELECT 'evt_' || replace(gen_random_uuid()::text, '-', '') AS id`;
  return drawn!.id;
}

// --- The event feed as the shop reads it -------------------------------------------------------

export function findEvent(db: AnyClient, id: string): Promise<WebhookEventModel | null> {
  return prismaOf(db).webhookEvent.findFirst({ where: { id } });
}

/** `limit` events, newest first (keyset on created_at, id), after `after` when given. */
export function eventsNewestFirst(
  db: AnyClient,
  page: { after: PageAfter | null; limit: number },
): Promise<WebhookEventModel[]> {
  const { after } = page;
  return prismaOf(db).webhookEvent.findMany({
    where: after ? olderThan(after) : {},
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: page.limit,
  });
}

/** The attempts at these events, oldest first. */
export function attemptsAt(db: AnyClient, eventIds: readonly string[]): Promise<WebhookAttemptModel[]> {
  return prismaOf(db).webhookAttempt.findMany({
    where: { eventId: { in: [...eventIds] } },
    orderBy: [{ attemptedAt: "asc" }, { id: "asc" }],
  });
}

// --- Redelivery --------------------------------------------------------------------------------

/** Locks the event's row until the transaction ends: redeliveries of one event queue one at a time. */
export async function lockEvent(tx: AnyClient, tenantId: string, eventId: string): Promise<void> {
  // Raw SQL is not scoped by a tenant's client: the tenant is named here.
  await prismaOf(tx).$queryRaw`
    SELECT id FROM webhook_events WHERE id = ${eventId} AND tenant_id = ${tenantId} FOR UPDATE`;
}

/** Of these endpoints, those that have the event pending (waiting for a retry, or being sent). */
export async function endpointsWithPending(
  tx: AnyClient,
  eventId: string,
  endpointIds: readonly string[],
): Promise<string[]> {
  const rows = await prismaOf(tx).webhookDelivery.findMany({
    where: { eventId, status: "pending", endpointId: { in: [...endpointIds] } },
    select: { endpointId: true },
  });
  return rows.map((row) => row.endpointId);
}

/** New pending deliveries of the event, due at `at`. */
export async function queueDeliveries(
  tx: AnyClient,
  event: { tenantId: string; eventId: string },
  deliveries: readonly { id: string; endpointId: string }[],
  at: Date,
): Promise<void> {
  await prismaOf(tx).webhookDelivery.createMany({
    data: deliveries.map(({ id, endpointId }) => ({ ...event, id, endpointId, nextAttemptAt: at, createdAt: at })),
  });
}

/**
 * The event's pending deliveries to these endpoints that wait for a later retry, made due at `now` (one
 * being sent right now is left to finish).
 */
export async function bringForwardRetries(
  tx: AnyClient,
  eventId: string,
  endpointIds: readonly string[],
  now: Date,
): Promise<void> {
  await prismaOf(tx).webhookDelivery.updateMany({
    where: {
      eventId,
      status: "pending",
      endpointId: { in: [...endpointIds] },
      nextAttemptAt: { gt: now },
      lockedUntil: null,
    },
    data: { nextAttemptAt: now },
  });
}

// --- Endpoints ---------------------------------------------------------------------------------

export interface NewEndpoint {
  id: string;
  tenantId: string;
  url: string;
  events: string[];
  secretSealed: string;
  at: Date;
}

/** Endpoints not deleted (enabled or not). */
export function countLiveEndpoints(db: AnyClient): Promise<number> {
  return prismaOf(db).webhookEndpoint.count({ where: { deletedAt: null } });
}

export function createEndpoint(tx: AnyClient, endpoint: NewEndpoint): Promise<WebhookEndpointModel> {
  const { at, ...columns } = endpoint;
  return prismaOf(tx).webhookEndpoint.create({ data: { ...columns, createdAt: at, updatedAt: at } });
}

/** The endpoint, unless it is deleted. */
export function findLiveEndpoint(db: AnyClient, id: string): Promise<WebhookEndpointModel | null> {
  return prismaOf(db).webhookEndpoint.findFirst({ where: { id, deletedAt: null } });
}

/** `limit` endpoints not deleted, oldest first (keyset on created_at, id), after `after` when given. */
export function liveEndpointsOldestFirst(
  db: AnyClient,
  page: { after: PageAfter | null; limit: number },
): Promise<WebhookEndpointModel[]> {
  const { after } = page;
  return prismaOf(db).webhookEndpoint.findMany({
    where: { deletedAt: null, ...(after ? { OR: laterThan(after) } : {}) },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: page.limit,
  });
}

/** The endpoints events are delivered to now: enabled and not deleted, with what each subscribes to. */
export function deliverableEndpoints(db: AnyClient): Promise<{ id: string; events: unknown }[]> {
  return prismaOf(db).webhookEndpoint.findMany({
    where: { enabled: true, deletedAt: null },
    select: { id: true, events: true },
  });
}

/** The columns a shop's change writes (the caller decides what a change of `enabled` resets). */
export interface EndpointChanges {
  enabled?: boolean;
  disabledReason?: null;
  failingSince?: null;
  events?: string[];
  updatedAt: Date;
}

export function updateEndpoint(tx: AnyClient, id: string, changes: EndpointChanges): Promise<WebhookEndpointModel> {
  return prismaOf(tx).webhookEndpoint.update({ where: { id }, data: changes });
}

/** Marks the endpoint deleted (and disabled); false when there is no such endpoint left to delete. */
export async function deleteEndpoint(tx: AnyClient, id: string, now: Date): Promise<boolean> {
  const { count } = await prismaOf(tx).webhookEndpoint.updateMany({
    where: { id, deletedAt: null },
    data: { deletedAt: now, enabled: false, updatedAt: now },
  });
  return count > 0;
}

/** The endpoint's pending deliveries dropped (one being sent finishes; the worker drops any written after this). */
export async function dropPendingDeliveries(tx: AnyClient, endpointId: string, now: Date): Promise<void> {
  await prismaOf(tx).webhookDelivery.updateMany({
    where: { endpointId, status: "pending" },
    data: { status: "dropped", finishedAt: now, lockedUntil: null },
  });
}

export interface SecretRotation {
  id: string;
  /** The sealed secret read before: the rotation happens only if it is still the endpoint's. */
  replaces: string;
  sealed: string;
  previousSecretExpiresAt: Date;
  now: Date;
}

/**
 * Compare-and-set of the endpoint's secret, the one replaced kept as the previous one; false when another
 * change came first.
 */
export async function rotateSecret(db: AnyClient, rotation: SecretRotation): Promise<boolean> {
  const { count } = await prismaOf(db).webhookEndpoint.updateMany({
    where: { id: rotation.id, deletedAt: null, secretSealed: rotation.replaces },
    data: {
      secretSealed: rotation.sealed,
      previousSecretSealed: rotation.replaces,
      previousSecretExpiresAt: rotation.previousSecretExpiresAt,
      updatedAt: rotation.now,
    },
  });
  return count > 0;
}

// --- The delivery worker -----------------------------------------------------------------------

export interface DeliveryClaim {
  now: Date;
  leaseMs: number;
  /** The instance's free slots. */
  limit: number;
  /** Deliveries of one tenant in flight on the instance at most (WEBHOOK_TENANT_CONCURRENCY). */
  perTenant: number;
  /** Deliveries to one endpoint in flight on the instance at most. */
  perEndpoint: number;
  /** What the instance has in flight, per tenant and per endpoint id. */
  inFlight: { tenants: ReadonlyMap<string, number>; endpoints: ReadonlyMap<string, number> };
}

export interface ClaimedDelivery {
  id: string;
  tenant_id: string;
  event_id: string;
  endpoint_id: string;
  attempts: number;
  /** Its endpoint, as the claim found it; null when it is gone. */
  endpoint: DeliveryEndpoint | null;
  /** Its event, as the claim found it; null when it is gone. */
  event: DeliveryEvent | null;
}

/**
 * Claims and leases the due deliveries this instance may start now, fairly (fair-claim.ts). The
 * candidates are each endpoint's oldest due deliveries, as many as the endpoint's free slots: the
 * endpoints with pending deliveries are found by skipping through the partial index
 * webhook_deliveries_pending_by_endpoint (one probe per endpoint, however deep its backlog), so a
 * claim costs the same whether a hanging shop has ten deliveries waiting or a hundred thousand.
 * Deliveries of disabled or deleted endpoints are claimed too: the worker drops them.
 */
export async function claimDueDeliveries(prisma: UnscopedDb, claim: DeliveryClaim): Promise<ClaimedDelivery[]> {
  const leaseEnd = new Date(claim.now.getTime() + claim.leaseMs);
  const due = Prisma.sql`status = 'pending' AND next_attempt_at <= ${claim.now}`;
  // A literal, not a parameter: the planner then knows each endpoint gives at most this many rows, and a
  // claim is planned as the handful of rows it reads (a parameter made it plan for thousands, and JIT-compile).
  if (!Number.isInteger(claim.perEndpoint) || claim.perEndpoint < 0) {
    throw new RangeError("perEndpoint must be a whole number");
  }
  const perEndpoint = Prisma.raw(String(claim.perEndpoint));
  const inFlightPerEndpoint = countsJson(claim.inFlight.endpoints);
  const candidates = Prisma.sql`
    WITH RECURSIVE pending_endpoints AS (
      (SELECT endpoint_id FROM webhook_deliveries WHERE status = 'pending' ORDER BY endpoint_id LIMIT 1)
      UNION ALL
      SELECT (SELECT d.endpoint_id FROM webhook_deliveries d
               WHERE d.status = 'pending' AND d.endpoint_id > p.endpoint_id
               ORDER BY d.endpoint_id LIMIT 1)
        FROM pending_endpoints p
       WHERE p.endpoint_id IS NOT NULL
    )
    SELECT due.id, due.tenant_id, due.next_attempt_at AS due_at
      FROM pending_endpoints p
      CROSS JOIN LATERAL (
        SELECT id, tenant_id, next_attempt_at, row_number() OVER (ORDER BY next_attempt_at, id) AS nth
          FROM (SELECT id, tenant_id, next_attempt_at FROM webhook_deliveries
                 WHERE endpoint_id = p.endpoint_id AND ${due}
                 ORDER BY next_attempt_at, id
                 LIMIT ${perEndpoint}) oldest
      ) due
     WHERE p.endpoint_id IS NOT NULL
       AND due.nth + COALESCE((${inFlightPerEndpoint}::jsonb ->> p.endpoint_id::text)::int, 0) <= ${perEndpoint}`;
  const rows = await claimFairly<ClaimedRow>(
    prisma,
    {
      table: "webhook_deliveries",
      candidates,
      claimable: due,
      lease: Prisma.sql`next_attempt_at = ${leaseEnd}, locked_until = ${leaseEnd}`,
      // The endpoint and the event each delivery is sent with, read by the claim's own statement.
      returning: Prisma.sql`m.id::text AS id, m.tenant_id, m.event_id, m.endpoint_id::text AS endpoint_id, m.attempts,
        (SELECT json_build_object('id', e.id, 'tenantId', e.tenant_id, 'url', e.url, 'enabled', e.enabled, 'deletedAt', e.deleted_at,
                                  'secretSealed', e.secret_sealed, 'previousSecretSealed', e.previous_secret_sealed,
                                  'previousSecretExpiresAt', e.previous_secret_expires_at)
           FROM webhook_endpoints e WHERE e.id = m.endpoint_id) AS endpoint,
        (SELECT json_build_object('id', v.id, 'tenantId', v.tenant_id, 'type', v.type, 'body', v.body)
           FROM webhook_events v WHERE v.id = m.event_id) AS event`,
    },
    { limit: claim.limit, perTenant: claim.perTenant, tenantsInFlight: claim.inFlight.tenants },
  );
  return rows.map((row) => ({ ...row, attempts: Number(row.attempts), endpoint: endpointOf(row.endpoint), event: row.event ?? null }));
}

/** A claimed row as the statement gives it: the endpoint as JSON, its timestamps as text. */
type ClaimedRow = Omit<ClaimedDelivery, "endpoint"> & { endpoint: EndpointJson | null };
type EndpointJson = Omit<DeliveryEndpoint, "deletedAt" | "previousSecretExpiresAt"> & { deletedAt: string | null; previousSecretExpiresAt: string | null };

/** The endpoint a claim read; null when it is gone. */
function endpointOf(found: EndpointJson | null | undefined): DeliveryEndpoint | null {
  if (!found) return null;
  return { ...found, deletedAt: dateOrNull(found.deletedAt), previousSecretExpiresAt: dateOrNull(found.previousSecretExpiresAt) };
}

/** What a delivery needs of its endpoint: where it goes, whether it still may, the sealed secrets that sign it. */
export interface DeliveryEndpoint {
  id: string;
  tenantId: string;
  url: string;
  enabled: boolean;
  deletedAt: Date | null;
  secretSealed: string;
  previousSecretSealed: string | null;
  previousSecretExpiresAt: Date | null;
}

/** What a delivery sends of its event. */
export interface DeliveryEvent {
  id: string;
  tenantId: string;
  type: string;
  body: string;
}

function dateOrNull(value: unknown): Date | null {
  return value == null ? null : new Date(value as string | Date);
}

/** A delivery still pending dropped (its endpoint is owed nothing more). */
export async function dropDelivery(db: AnyClient, id: string, now: Date): Promise<void> {
  await prismaOf(db).webhookDelivery.updateMany({
    where: { id, status: "pending" },
    data: { status: "dropped", finishedAt: now, lockedUntil: null },
  });
}

export interface AttemptRecord {
  deliveryId: string;
  tenantId: string;
  eventId: string;
  endpointId: string;
  attemptedAt: Date;
  finishedAt: Date;
  statusCode: number | null;
  error: string | null;
  acknowledged: boolean;
  /** The delivery's failed attempts so far, this one included when it failed. */
  attempts: number;
  /** What becomes of the delivery: done (delivered, or failed for good), or tried again at `nextAttemptAt`. */
  next: { status: "delivered" | "failed" } | { status: "pending"; nextAttemptAt: Date };
  /**
   * An endpoint failing since this time or earlier is disabled by this failure (now −
   * WEBHOOK_DISABLE_AFTER_SECONDS).
   */
  disableIfFailingSince: Date;
}

/**
 * Records an attempt in one statement: the attempt row; the delivery's new state; the endpoint's
 * `failing_since` (set by its first failure after a success, cleared by a success — written only when
 * it changes); and, when the endpoint has been failing since `disableIfFailingSince` or earlier, the
 * endpoint disabled with reason "failing" and every delivery still pending for it dropped. The
 * endpoint's update is guarded by its own row, so of two instances recording failures at once only one
 * disables it. Answers, when this attempt disabled the endpoint, since when it had been failing.
 */
export async function recordAttempt(
  prisma: UnscopedDb,
  record: AttemptRecord,
): Promise<{ endpointDisabledFailingSince: Date | null }> {
  const ack = Prisma.sql`${record.acknowledged}::boolean`;
  const threshold = Prisma.sql`${record.disableIfFailingSince}::timestamptz`;
  // Of the endpoint's columns before this update (SET and WHERE read the row as it was).
  const disables = Prisma.sql`
    COALESCE(NOT ${ack} AND enabled AND deleted_at IS NULL AND failing_since <= ${threshold}, false)`;
  const nextStatus = Prisma.sql`${record.next.status}::text`;
  const nextAttemptAt = record.next.status === "pending" ? record.next.nextAttemptAt : null;
  const droppedWithEndpoint = Prisma.sql`
    (${nextStatus} = 'pending' AND EXISTS (SELECT 1 FROM endpoint WHERE disabled))`;
  // Plain, prepared by name: one statement per delivery (as deliveryTargets).
  const rows = await plainOf(prisma).autocommit.$queryRaw<{ disabled: boolean | null; failing_since: Date | null }[]>`
    WITH attempt AS (
      INSERT INTO webhook_attempts (id, tenant_id, event_id, endpoint_id, attempted_at, status_code, error)
      VALUES (gen_random_uuid(), ${record.tenantId}, ${record.eventId}, ${record.endpointId}::uuid,
              ${record.attemptedAt}::timestamptz, ${record.statusCode}::int, ${record.error}::text)
    ), endpoint AS (
      UPDATE webhook_endpoints
         SET failing_since = CASE WHEN ${ack} THEN NULL
                                  ELSE COALESCE(failing_since, ${record.attemptedAt}::timestamptz) END,
             enabled = enabled AND NOT ${disables},
             disabled_reason = CASE WHEN ${disables} THEN 'failing' ELSE disabled_reason END,
             updated_at = CASE WHEN ${disables} THEN ${record.finishedAt}::timestamptz ELSE updated_at END
       WHERE id = ${record.endpointId}::uuid
         AND CASE WHEN ${ack} THEN failing_since IS NOT NULL ELSE failing_since IS NULL OR ${disables} END
      RETURNING (disabled_reason = 'failing' AND NOT enabled AND failing_since <= ${threshold}) AS disabled,
                failing_since
    ), delivery AS (
      UPDATE webhook_deliveries
         SET attempts = ${record.attempts}::int,
             status = CASE WHEN ${droppedWithEndpoint} THEN 'dropped' ELSE ${nextStatus} END,
             next_attempt_at = COALESCE(${nextAttemptAt}::timestamptz, next_attempt_at),
             finished_at = CASE WHEN ${nextStatus} = 'pending' AND NOT ${droppedWithEndpoint}
                                THEN NULL ELSE ${record.finishedAt}::timestamptz END,
             locked_until = NULL
       WHERE id = ${record.deliveryId}::uuid AND status = 'pending'
    ), dropped AS (
      UPDATE webhook_deliveries
         SET status = 'dropped', finished_at = ${record.finishedAt}::timestamptz, locked_until = NULL
       WHERE endpoint_id = ${record.endpointId}::uuid AND status = 'pending' AND id <> ${record.deliveryId}::uuid
         AND EXISTS (SELECT 1 FROM endpoint WHERE disabled)
    )
    SELECT disabled, failing_since FROM endpoint`;
  const disabled = rows.find((row) => row.disabled === true);
  return { endpointDisabledFailingSince: disabled?.failing_since ? new Date(disabled.failing_since) : null };
}

// --- What an erasure masks (docs/data-rights.md#erasure) ---------------------------------------

/**
 * `limit` events created at `since` or later whose body contains one of `fragments`, oldest first
 * (keyset on created_at, id), after `after` when given.
 */
export function eventsContaining(
  db: AnyClient,
  search: { since: Date; fragments: readonly string[]; after: PageAfter | undefined; limit: number },
): Promise<{ id: string; body: string; createdAt: Date }[]> {
  const { after } = search;
  return prismaOf(db).webhookEvent.findMany({
    where: {
      AND: [
        { createdAt: { gte: search.since } },
        { OR: search.fragments.map((fragment) => ({ body: { contains: fragment } })) },
        ...(after ? [{ OR: laterThan(after) }] : []),
      ],
    },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: search.limit,
    select: { id: true, body: true, createdAt: true },
  });
}

/** An event's body replaced (an erasure masks the phone in it). */
export async function rewriteEventBody(db: AnyClient, id: string, body: string): Promise<void> {
  await prismaOf(db).webhookEvent.updateMany({ where: { id }, data: { body } });
}
