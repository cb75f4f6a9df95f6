/**
 * The payout sweep of a reconciler run (../reconciliation.ts): a Transaction Status query for each due
 * PENDING/UNKNOWN payout; its result callback settles it. A payout is never marked FAILED by giving
 * up (the money may have moved): after `payoutGiveUpAfterSeconds` it stays UNKNOWN, is no longer
 * queried, and is logged for review.
 */
import { tenantCallbackUrl } from "../kernel/callback-tokens.js";
import { claimDueStatusQueries, queryClaimedForStatus, type ClaimedForStatus, type SweepRun } from "../kernel/leased-sweep.js";

interface ClaimedPayout extends ClaimedForStatus {
  originator_conversation_id: string;
  status: string;
}

const open = ["PENDING", "UNKNOWN"];

export async function queryDuePayouts(run: SweepRun): Promise<void> {
  const { deps, options, report } = run;
  const statusUrl = deps.momo.settings.b2cStatusUrl;
  if (!deps.momo.b2cEnabled || !statusUrl) return;
  const claimed = await claimDueStatusQueries<ClaimedPayout>(run, "payouts", ["tenant_id", "originator_conversation_id", "status", "status_query_attempts", "created_at"]);

  await queryClaimedForStatus(
    run,
    claimed,
    {
      what: "payout",
      giveUpAfterSeconds: options.payoutGiveUpAfterSeconds,
      describe: (row) => ({ payoutId: row.id, originatorConversationId: row.originator_conversation_id }),
      giveUp: async (db, row, lastError) =>
        (await db.payout.updateMany({ where: { id: row.id, status: { in: open } }, data: { status: "UNKNOWN", nextStatusQueryAt: null, lastError, updatedAt: deps.clock.now() } })).count === 1,
      query: (client, row) => {
        // The payout's shop's own token (docs/mpesa.md#callback-tokens), whichever form the payout's own URLs carried.
        const url = tenantCallbackUrl(deps.momo.callbackTokens, statusUrl, row.tenant_id) ?? statusUrl;
        return client.transactionStatus({ originatorConversationId: row.originator_conversation_id, resultUrl: url, queueTimeoutUrl: url, remarks: "Payout status" });
      },
      reschedule: async (db, row, next, lastError) => {
        await db.payout.updateMany({ where: { id: row.id, status: { in: open } }, data: { nextStatusQueryAt: next, ...(lastError ? { lastError } : {}) } });
      },
    },
    { queried: () => (report.payoutsQueried += 1), givenUp: () => (report.payoutsGivenUp += 1) },
  );
}
