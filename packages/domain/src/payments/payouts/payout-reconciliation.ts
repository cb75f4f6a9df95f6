/**
 * The payout sweep of a reconciler run (../reconciliation.ts): a Transaction Status query for each due
 * PENDING/UNKNOWN payout; its result callback settles it. A payout is never marked FAILED by giving
 * up (the money may have moved): after `payoutGiveUpAfterSeconds` it stays UNKNOWN, is no longer
 * queried, and is logged for review.
 */
import { leaseEnd, nextAttemptAt, queryErrorNote, type SweepRun } from "../kernel/leased-sweep.js";

interface ClaimedPayout {
  id: string;
  tenant_id: string;
  originator_conversation_id: string;
  status: string;
  status_query_attempts: number;
  created_at: Date;
}

export async function queryDuePayouts(run: SweepRun): Promise<void> {
  const { deps, options, report } = run;
  const statusUrl = deps.momo.settings.b2cStatusUrl;
  if (!deps.momo.b2cEnabled || !statusUrl) return;
  const now = deps.clock.now();
  const claimed = await deps.db.unscoped.$queryRaw<ClaimedPayout[]>`
    WITH due AS (
      SELECT id FROM payouts
       WHERE status IN ('PENDING', 'UNKNOWN') AND next_status_query_at <= ${now}
       ORDER BY next_status_query_at
       LIMIT ${options.batchSize}::int
         FOR UPDATE SKIP LOCKED
    )
    UPDATE payouts p
       SET next_status_query_at = ${leaseEnd(run, now)}, status_query_attempts = p.status_query_attempts + 1
      FROM due
     WHERE p.id = due.id
    RETURNING p.id::text AS id, p.tenant_id, p.originator_conversation_id, p.status, p.status_query_attempts, p.created_at`;

  for (const row of claimed) {
    const db = deps.db.forTenant(row.tenant_id);
    const attempts = Number(row.status_query_attempts);
    const age = deps.clock.now().getTime() - new Date(row.created_at).getTime();
    if (age >= options.payoutGiveUpAfterSeconds * 1000) {
      const updated = await db.payout.updateMany({
        where: { id: row.id, status: { in: ["PENDING", "UNKNOWN"] } },
        data: { status: "UNKNOWN", nextStatusQueryAt: null, lastError: "status queries exhausted: the outcome is unknown; check it on the M-Pesa portal", updatedAt: deps.clock.now() },
      });
      if (updated.count === 1) {
        report.payoutsGivenUp += 1;
        deps.logger.error({ payoutId: row.id, originatorConversationId: row.originator_conversation_id }, "payout status still unknown: needs manual review");
      }
      continue;
    }
    let lastError: string | null = null;
    try {
      const client = await run.clientFor(row.tenant_id);
      if (!client) throw new Error("M-Pesa is not configured for this tenant");
      await run.pace();
      report.payoutsQueried += 1;
      await client.transactionStatus({
        originatorConversationId: row.originator_conversation_id,
        resultUrl: statusUrl,
        queueTimeoutUrl: statusUrl,
        remarks: "Payout status",
      });
    } catch (error) {
      report.errors += 1;
      lastError = queryErrorNote(error);
      deps.logger.warn({ payoutId: row.id, error: lastError }, "Transaction Status query failed");
    }
    await db.payout.updateMany({
      where: { id: row.id, status: { in: ["PENDING", "UNKNOWN"] } },
      data: { nextStatusQueryAt: nextAttemptAt(run, attempts), ...(lastError ? { lastError: lastError.slice(0, 500) } : {}) },
    });
  }
}
