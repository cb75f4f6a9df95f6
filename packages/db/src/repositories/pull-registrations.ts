/**
 * The pull_registrations table (docs/mpesa.md#recovery): a shop's short code registered with Daraja's
 * Pull Transactions API, and when the sweep pulls it next. When a row is due, how long a claim leases it
 * and the window it pulls are the payments area's rules: the times come from the caller.
 */
import type { PullRegistrationModel } from "../generated/prisma/models.js";
import type { UnscopedDb } from "../doors.js";
import { prismaOf, type AnyClient } from "./clients.js";

export interface Registered {
  tenantId: string;
  shortCode: string;
  nominatedNumber: string;
  at: Date;
  /** When the sweep first pulls it (a new registration, or a changed short code). */
  nextPullAt: Date;
}

/**
 * Records a registration: a new row, or the tenant's row with its short code and number replaced. A
 * different short code starts again (its pulls so far were another code's); the same one keeps its place.
 */
export async function record(client: AnyClient, registered: Registered): Promise<PullRegistrationModel> {
  const prisma = prismaOf(client);
  const { tenantId, shortCode, nominatedNumber, at, nextPullAt } = registered;
  const existing = await prisma.pullRegistration.findUnique({ where: { tenantId } });
  if (!existing) {
    return prisma.pullRegistration.create({
      data: { tenantId, shortCode, nominatedNumber, registeredAt: at, updatedAt: at, nextPullAt },
    });
  }
  const restart = existing.shortCode !== shortCode ? { pulledUntil: null, nextPullAt } : {};
  return prisma.pullRegistration.update({
    where: { tenantId },
    data: { shortCode, nominatedNumber, registeredAt: at, updatedAt: at, ...restart },
  });
}

export function find(client: AnyClient, tenantId: string): Promise<PullRegistrationModel | null> {
  return prismaOf(client).pullRegistration.findUnique({ where: { tenantId } });
}

/** A registration the sweep claimed. */
export interface ClaimedRegistration {
  id: string;
  tenant_id: string;
  short_code: string;
  pulled_until: Date | null;
}

/**
 * Claims up to `limit` registrations due at `now`, oldest due first, each locked (other instances skip
 * it) and leased by moving next_pull_at to `leaseUntil`. A tenant has one row, so each due tenant is
 * claimed once, in the order it fell due.
 */
export function claimDue(
  prisma: UnscopedDb,
  claim: { now: Date; leaseUntil: Date; limit: number },
): Promise<ClaimedRegistration[]> {
  return prisma.$queryRaw<ClaimedRegistration[]>`
    WITH due AS (
      SELECT id FROM pull_registrations
       WHERE next_pull_at <= ${claim.now}
       ORDER BY next_pull_at, id
       LIMIT ${claim.limit}::int
         FOR UPDATE SKIP LOCKED
    )
    UPDATE pull_registrations r
       SET next_pull_at = ${claim.leaseUntil}
      FROM due
     WHERE r.id = due.id
    RETURNING r.id::text AS id, r.tenant_id, r.short_code, r.pulled_until`;
}

/** After a pull: when the next is due, and (when it read its window in full) where the window ended. */
export async function finishPull(
  client: AnyClient,
  id: string,
  done: { at: Date; nextPullAt: Date; pulledUntil?: Date; error: string | null },
): Promise<void> {
  await prismaOf(client).pullRegistration.update({
    where: { id },
    data: {
      nextPullAt: done.nextPullAt,
      lastPulledAt: done.at,
      lastPullError: done.error,
      updatedAt: done.at,
      ...(done.pulledUntil ? { pulledUntil: done.pulledUntil } : {}),
    },
  });
}
