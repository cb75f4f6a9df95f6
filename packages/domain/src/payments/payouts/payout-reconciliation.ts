/**
 * The payout sweep of a reconciler run (../reconciliation.ts): a Transaction Status query for each due
 * PENDING/UNKNOWN payout (shared/leased-sweep.ts's queryDueForStatus); its result callback settles it.
 * After `payoutGiveUpAfterSeconds` a payout stays UNKNOWN and is logged for review.
 */
import { payouts } from "@mteja/db";
import { tenantCallbackUrl } from "../shared/callback-tokens.js";
import { queryDueForStatus, type SweepRun } from "../shared/leased-sweep.js";

export async function queryDuePayouts(run: SweepRun): Promise<void> {
  const { deps, options, report } = run;
  const statusUrl = deps.daraja.settings.callbackUrls["b2c_status"];
  if (!deps.daraja.b2cEnabled || !statusUrl) return;
  await queryDueForStatus(run, {
    table: "payouts",
    what: "payout",
    giveUpAfterSeconds: options.payoutGiveUpAfterSeconds,
    claim: payouts.claimDueStatusQueries,
    updateIfStill: payouts.updateIfStill,
    describe: (row) => ({ payoutId: row.id, originatorConversationId: row.originator_conversation_id }),
    query: (client, row) => {
      // The payout's shop's own token (docs/mpesa.md#callback-tokens), whichever form the payout's own URLs carried.
      const url = tenantCallbackUrl(deps.daraja.callbackTokens, statusUrl, row.tenant_id) ?? statusUrl;
      const originatorConversationId = row.originator_conversation_id;
      return client.transactionStatus({
        originatorConversationId,
        resultUrl: url,
        queueTimeoutUrl: url,
        remarks: "Payout status",
      });
    },
    count: { queried: () => (report.payoutsQueried += 1), givenUp: () => (report.payoutsGivenUp += 1) },
  });
}
