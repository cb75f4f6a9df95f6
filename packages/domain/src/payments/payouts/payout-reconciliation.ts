/**
 * The payout sweep of a reconciler run (../reconciliation.ts): a Transaction Status query for each due
 * PENDING/UNKNOWN payout; its result callback settles it. A payout is never marked FAILED by giving
 * up (the money may have moved): after `payoutGiveUpAfterSeconds` it stays UNKNOWN, is no longer
 * queried, and is logged for review.
 */
import { payouts } from "@mteja/db";
import { tenantCallbackUrl } from "../shared/callback-tokens.js";
import { leaseEnd, queryClaimedForStatus, type SweepRun } from "../shared/leased-sweep.js";

/** A payout whose outcome is still open: queried until Daraja settles it. */
const open = ["PENDING", "UNKNOWN"];

export async function queryDuePayouts(run: SweepRun): Promise<void> {
  const { deps, options, report } = run;
  const statusUrl = deps.daraja.settings.callbackUrls["b2c_status"];
  if (!deps.daraja.b2cEnabled || !statusUrl) return;
  const now = deps.clock.now();
  const due = { statuses: open, now, leaseUntil: leaseEnd(run, now), limit: options.batchSize };
  const claimed = await payouts.claimDueStatusQueries(deps.db.unscoped("worker"), due);

  await queryClaimedForStatus(
    run,
    { table: "payouts", rows: claimed, leaseUntil: due.leaseUntil },
    {
      what: "payout",
      giveUpAfterSeconds: options.payoutGiveUpAfterSeconds,
      describe: (row) => ({ payoutId: row.id, originatorConversationId: row.originator_conversation_id }),
      giveUp: (db, row, lastError) =>
        payouts.updateIfStill(
          db,
          { id: row.id, status: open },
          { status: "UNKNOWN", nextStatusQueryAt: null, lastError, updatedAt: deps.clock.now() },
        ),
      query: (client, row) => {
        // The payout's shop's own token (docs/mpesa.md#callback-tokens), whichever form the payout's own URLs carried.
        const url = tenantCallbackUrl(deps.daraja.callbackTokens, statusUrl, row.tenant_id) ?? statusUrl;
        return client.transactionStatus({ originatorConversationId: row.originator_conversation_id, resultUrl: url, queueTimeoutUrl: url, remarks: "Payout status" });
      },
      reschedule: async (db, row, next, lastError) => {
        const changes = { nextStatusQueryAt: next, ...(lastError ? { lastError } : {}) };
        await payouts.updateIfStill(db, { id: row.id, status: open }, changes);
      },
    },
    { queried: () => (report.payoutsQueried += 1), givenUp: () => (report.payoutsGivenUp += 1) },
  );
}
