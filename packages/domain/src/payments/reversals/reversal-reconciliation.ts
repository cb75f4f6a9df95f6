/**
 * The reversal sweep of a reconciler run (../reconciliation.ts): a Transaction Status query for each
 * due PENDING/UNKNOWN reversal, on the short code it returned money from; its result callback
 * (/api/momo/callback/reversal/status) settles it. The query names the reversal by Daraja's
 * OriginatorConversationID, or, when the request's answer never came, by the reversed payment's
 * receipt. A reversal is never marked FAILED by giving up (the money may have moved): after
 * `reversalGiveUpAfterSeconds` it stays UNKNOWN, is no longer queried, and is logged for review.
 */
import { reversals } from "@mteja/db";
import { tenantCallbackUrl } from "../shared/callback-tokens.js";
import { leaseEnd, queryClaimedForStatus, type SweepRun } from "../shared/leased-sweep.js";

/** A reversal whose outcome is still open: queried until Daraja settles it. */
const open = ["PENDING", "UNKNOWN"];

export async function queryDueReversals(run: SweepRun): Promise<void> {
  const { deps, options, report } = run;
  const statusUrl = deps.daraja.settings.callbackUrls["reversal_status"];
  if (!statusUrl) return;
  const now = deps.clock.now();
  const due = { statuses: open, now, leaseUntil: leaseEnd(run, now), limit: options.batchSize };
  const claimed = await reversals.claimDueStatusQueries(deps.db.unscoped("worker"), due);

  await queryClaimedForStatus(
    run,
    { table: "payment_reversals", rows: claimed, leaseUntil: due.leaseUntil },
    {
      what: "reversal",
      giveUpAfterSeconds: options.reversalGiveUpAfterSeconds,
      describe: (row) => ({ reversalId: row.id, paymentId: row.payment_id }),
      giveUp: (db, row, lastError) =>
        reversals.updateIfStill(
          db,
          { id: row.id, status: open },
          { status: "UNKNOWN", nextStatusQueryAt: null, lastError, updatedAt: deps.clock.now() },
        ),
      query: (client, row) => {
        // The reversal's shop's own token (docs/mpesa.md#callback-tokens), whichever form its own URLs carried.
        const url = tenantCallbackUrl(deps.daraja.callbackTokens, statusUrl, row.tenant_id) ?? statusUrl;
        return client.transactionStatus({
          ...(row.originator_conversation_id ? { originatorConversationId: row.originator_conversation_id } : { transactionId: row.original_receipt }),
          partyA: client.reversalShortcode,
          resultUrl: url,
          queueTimeoutUrl: url,
          remarks: "Reversal status",
        });
      },
      reschedule: async (db, row, next, lastError) => {
        const changes = { nextStatusQueryAt: next, ...(lastError ? { lastError } : {}) };
        await reversals.updateIfStill(db, { id: row.id, status: open }, changes);
      },
    },
    { queried: () => (report.reversalsQueried += 1), givenUp: () => (report.reversalsGivenUp += 1) },
  );
}
