/**
 * The refund sweep of a reconciler run (../reconciliation.ts): a Transaction Status query for each due
 * PENDING/UNKNOWN refund; its result callback settles it. A refund by reversal is named by Daraja's
 * OriginatorConversationID, or, when the request's answer never came, by the reversed payment's receipt,
 * on the short code it returned money from (its result at /reversal/status); a refund sent by B2C by our
 * OriginatorConversationID, on the B2C short code (its result at /refund/b2c/status). A refund is never
 * marked FAILED by giving up (the money may have moved): after `refundGiveUpAfterSeconds` it stays
 * UNKNOWN, is no longer queried, and is logged for review.
 */
import { refunds } from "@mteja/db";
import { tenantCallbackUrl } from "../shared/callback-tokens.js";
import { queryDueForStatus, type SweepRun } from "../shared/leased-sweep.js";

export async function queryDueRefunds(run: SweepRun): Promise<void> {
  const { deps, options, report } = run;
  const reversalStatusUrl = deps.daraja.settings.callbackUrls["reversal_status"];
  const b2cStatusUrl = deps.daraja.settings.callbackUrls["refund_b2c_status"];
  if (!reversalStatusUrl || !b2cStatusUrl) return;
  await queryDueForStatus(run, {
    table: "refunds",
    what: "refund",
    giveUpAfterSeconds: options.refundGiveUpAfterSeconds,
    claim: refunds.claimDueStatusQueries,
    updateIfStill: refunds.updateIfStill,
    describe: (row) => ({ refundId: row.id, paymentId: row.payment_id, method: row.method }),
    query: (client, row) => {
      const statusUrl = row.method === "b2c" ? b2cStatusUrl : reversalStatusUrl;
      // The refund's shop's own token (docs/mpesa.md#callback-tokens), whichever form its own URLs carried.
      const url = tenantCallbackUrl(deps.daraja.callbackTokens, statusUrl, row.tenant_id) ?? statusUrl;
      const urls = { resultUrl: url, queueTimeoutUrl: url };
      if (row.method === "b2c" && row.originator_conversation_id) {
        const originatorConversationId = row.originator_conversation_id;
        return client.transactionStatus({ originatorConversationId, ...urls, remarks: "Refund status" });
      }
      const named = row.originator_conversation_id
        ? { originatorConversationId: row.originator_conversation_id }
        : { transactionId: row.original_receipt ?? "" };
      return client.transactionStatus({
        ...named,
        partyA: client.reversalShortcode,
        ...urls,
        remarks: "Reversal status",
      });
    },
    count: { queried: () => (report.refundsQueried += 1), givenUp: () => (report.refundsGivenUp += 1) },
  });
}
