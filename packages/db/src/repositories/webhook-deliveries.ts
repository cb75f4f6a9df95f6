/**
 * The webhook delivery worker's statements (docs/webhooks.md#how-delivery-works): the fair claim of due
 * deliveries, and recording an attempt together with what it says about the endpoint's health.
 */
import { Prisma, type PrismaClient } from "../generated/prisma/client.js";
import { claimFairly, countsJson } from "./fair-claim.js";

export interface WebhookClaim {
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

export interface ClaimedWebhookDelivery {
  id: string;
  tenant_id: string;
  event_id: string;
  endpoint_id: string;
  attempts: number;
}

/**
 * Claims and leases the due deliveries this instance may start now, fairly (fair-claim.ts). The
 * candidates are each endpoint's oldest due deliveries, as many as the endpoint's free slots: the
 * endpoints with pending deliveries are found by skipping through the partial index
 * webhook_deliveries_pending_by_endpoint (one probe per endpoint, however deep its backlog), so a
 * claim costs the same whether a hanging shop has ten deliveries waiting or a hundred thousand.
 * Deliveries of disabled or deleted endpoints are claimed too: the worker drops them.
 */
export async function claimDueWebhookDeliveries(prisma: PrismaClient, claim: WebhookClaim): Promise<ClaimedWebhookDelivery[]> {
  const leaseEnd = new Date(claim.now.getTime() + claim.leaseMs);
  const due = Prisma.sql`status = 'pending' AND next_attempt_at <= ${claim.now}`;
  // A literal, not a parameter: the planner then knows each endpoint gives at most this many rows, and a
  // claim is planned as the handful of rows it reads (a parameter made it plan for thousands, and JIT-compile).
  if (!Number.isInteger(claim.perEndpoint) || claim.perEndpoint < 0) throw new RangeError("perEndpoint must be a whole number");
  const perEndpoint = Prisma.raw(String(claim.perEndpoint));
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
       AND due.nth + COALESCE((${countsJson(claim.inFlight.endpoints)}::jsonb ->> p.endpoint_id::text)::int, 0) <= ${perEndpoint}`;
  const rows = await claimFairly<ClaimedWebhookDelivery>(
    prisma,
    {
      table: "webhook_deliveries",
      candidates,
      claimable: due,
      lease: Prisma.sql`next_attempt_at = ${leaseEnd}, locked_until = ${leaseEnd}`,
      returning: Prisma.sql`m.id::text AS id, m.tenant_id, m.event_id, m.endpoint_id::text AS endpoint_id, m.attempts`,
    },
    { limit: claim.limit, perTenant: claim.perTenant, tenantsInFlight: claim.inFlight.tenants },
  );
  return rows.map((row) => ({ ...row, attempts: Number(row.attempts) }));
}

export interface WebhookAttemptRecord {
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
  /** An endpoint failing since this time or earlier is disabled by this failure (now − WEBHOOK_DISABLE_AFTER_SECONDS). */
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
export async function recordWebhookAttempt(prisma: PrismaClient, record: WebhookAttemptRecord): Promise<{ endpointDisabledFailingSince: Date | null }> {
  const ack = Prisma.sql`${record.acknowledged}::boolean`;
  const threshold = Prisma.sql`${record.disableIfFailingSince}::timestamptz`;
  // Of the endpoint's columns before this update (SET and WHERE read the row as it was).
  const disables = Prisma.sql`COALESCE(NOT ${ack} AND enabled AND deleted_at IS NULL AND failing_since <= ${threshold}, false)`;
  const nextStatus = Prisma.sql`${record.next.status}::text`;
  const nextAttemptAt = record.next.status === "pending" ? record.next.nextAttemptAt : null;
  const droppedWithEndpoint = Prisma.sql`(${nextStatus} = 'pending' AND EXISTS (SELECT 1 FROM endpoint WHERE disabled))`;
  const rows = await prisma.$queryRaw<{ disabled: boolean | null; failing_since: Date | null }[]>`
    WITH attempt AS (
      INSERT INTO webhook_attempts (id, tenant_id, event_id, endpoint_id, attempted_at, status_code, error)
      VALUES (gen_random_uuid(), ${record.tenantId}, ${record.eventId}, ${record.endpointId}::uuid, ${record.attemptedAt}::timestamptz, ${record.statusCode}::int, ${record.error}::text)
    ), endpoint AS (
      UPDATE webhook_endpoints
         SET failing_since = CASE WHEN ${ack} THEN NULL ELSE COALESCE(failing_since, ${record.attemptedAt}::timestamptz) END,
             enabled = enabled AND NOT ${disables},
             disabled_reason = CASE WHEN ${disables} THEN 'failing' ELSE disabled_reason END,
             updated_at = CASE WHEN ${disables} THEN ${record.finishedAt}::timestamptz ELSE updated_at END
       WHERE id = ${record.endpointId}::uuid
         AND CASE WHEN ${ack} THEN failing_since IS NOT NULL ELSE failing_since IS NULL OR ${disables} END
      RETURNING (disabled_reason = 'failing' AND NOT enabled AND failing_since <= ${threshold}) AS disabled, failing_since
    ), delivery AS (
      UPDATE webhook_deliveries
         SET attempts = ${record.attempts}::int,
             status = CASE WHEN ${droppedWithEndpoint} THEN 'dropped' ELSE ${nextStatus} END,
             next_attempt_at = COALESCE(${nextAttemptAt}::timestamptz, next_attempt_at),
             finished_at = CASE WHEN ${nextStatus} = 'pending' AND NOT ${droppedWithEndpoint} THEN NULL ELSE ${record.finishedAt}::timestamptz END,
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
