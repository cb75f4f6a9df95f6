/**
 * B2C payouts in the flow registry (payments/flows.ts): the result, the queue time-out and the
 * Transaction Status result of a payout, and the status-query sweep.
 */
import { kindCallback, type DarajaFlow } from "../shared/flow.js";
import { applyStoredPayoutCallback, parsePayoutCallback } from "./payout-callbacks.js";
import { queryDuePayouts } from "./payout-reconciliation.js";

const payoutCallback = kindCallback(parsePayoutCallback, (deps, callbackId, authority, callback) =>
  applyStoredPayoutCallback(deps, callbackId, authority, callback.outcome, callback.ids),
);

export const payoutsFlow = {
  name: "payouts",
  callbacks: {
    b2c_result: payoutCallback(
      "b2c_result",
      "b2c/result",
      { setting: "MOMO_B2C_RESULT_URL" },
      {
        summary: "B2C result",
        body:
          "Body: `{ Result: { ResultCode, ResultDesc, OriginatorConversationID, ConversationID, TransactionID, " +
          "ResultParameters? } }`.",
      },
    ),
    b2c_timeout: payoutCallback(
      "b2c_timeout",
      "b2c/timeout",
      { setting: "MOMO_B2C_TIMEOUT_URL" },
      {
        summary: "B2C queue time-out",
        body: "The payout becomes UNKNOWN and a Transaction Status query is scheduled.",
      },
    ),
    b2c_status: payoutCallback(
      "b2c_status",
      "b2c/status",
      { setting: "MOMO_B2C_STATUS_URL", besides: "b2c_result" },
      { summary: "Transaction Status result (and its time-out)", body: "Settles an UNKNOWN or PENDING payout." },
    ),
  },
  sweeps: [queryDuePayouts],
} satisfies DarajaFlow;
