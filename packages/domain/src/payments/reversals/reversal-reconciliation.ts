/**
 * The reversal sweep of a reconciler run (../reconciliation.ts): a Transaction Status query for each
 * due PENDING/UNKNOWN reversal, on the short code it returned money from; its result callback
 * (/api/momo/callback/reversal/status) settles it. The query names the reversal by Daraja's
 * OriginatorConversationID, or, when the request's answer never came, by the reversed payment's
 * receipt. A reversal is never marked FAILED by giving up (the money may have moved): after
 * `reversalGiveUpAfterSeconds` it stays UNKNOWN, is no longer queried, and is logged for review.
 */
import { leaseEnd, nextAttemptAt, queryErrorNote, type SweepRun } from "../kernel/leased-sweep.js";

interface ClaimedReversal {
  id: string;
  tenant_id: string;
  payment_id: string;
  originator_conversation_id: string | null;
  original_receipt: string;
  status_query_attempts: number;
  created_at: Date;
}

const open = ["PENDING", "UNKNOWN"];

export async function queryDueReversals(run: SweepRun): Promise<void> {
  const { deps, options, report } = run;
  const statusUrl = deps.momo.settings.reversalStatusUrl;
  if (!statusUrl) return;
  const now = deps.clock.now();
  const claimed = await deps.db.unscoped.$queryRaw<ClaimedReversal[]>`
    WITH due AS (
      SELECT id FROM payment_reversals
       WHERE status IN ('PENDING', 'UNKNOWN') AND next_status_query_at <= ${now}
       ORDER BY next_status_query_at
       LIMIT ${options.batchSize}::int
         FOR UPDATE SKIP LOCKED
    )
    UPDATE payment_reversals r
       SET next_status_query_at = ${leaseEnd(run, now)}, status_query_attempts = r.status_query_attempts + 1
      FROM due
     WHERE r.id = due.id
    RETURNING r.id::text AS id, r.tenant_id, r.payment_id::text AS payment_id, r.originator_conversation_id, r.original_receipt, r.status_query_attempts, r.created_at`;

  for (const row of claimed) {
    const db = deps.db.forTenant(row.tenant_id);
    const attempts = Number(row.status_query_attempts);
    const age = deps.clock.now().getTime() - new Date(row.created_at).getTime();
    if (age >= options.reversalGiveUpAfterSeconds * 1000) {
      const updated = await db.paymentReversal.updateMany({
        where: { id: row.id, status: { in: open } },
        data: { status: "UNKNOWN", nextStatusQueryAt: null, lastError: "status queries exhausted: the outcome is unknown; check it on the M-Pesa portal", updatedAt: deps.clock.now() },
      });
      if (updated.count === 1) {
        report.reversalsGivenUp += 1;
        deps.logger.error({ reversalId: row.id, paymentId: row.payment_id }, "reversal status still unknown: needs manual review");
      }
      continue;
    }
    let lastError: string | null = null;
    try {
      const client = await run.clientFor(row.tenant_id);
      if (!client) throw new Error("M-Pesa is not configured for this tenant");
      await run.pace();
      report.reversalsQueried += 1;
      await client.transactionStatus({
        ...(row.originator_conversation_id ? { originatorConversationId: row.originator_conversation_id } : { transactionId: row.original_receipt }),
        partyA: client.reversalShortcode,
        resultUrl: statusUrl,
        queueTimeoutUrl: statusUrl,
        remarks: "Reversal status",
      });
    } catch (error) {
      report.errors += 1;
      lastError = queryErrorNote(error);
      deps.logger.warn({ reversalId: row.id, error: lastError }, "Transaction Status query for a reversal failed");
    }
    await db.paymentReversal.updateMany({
      where: { id: row.id, status: { in: open } },
      data: { nextStatusQueryAt: nextAttemptAt(run, attempts), ...(lastError ? { lastError: lastError.slice(0, 500) } : {}) },
    });
  }
}
