/**
 * Refunds in the flow registry (payments/flows.ts): a refund by reversal is Daraja's Reversal, whose
 * result, queue time-out and Transaction Status result arrive at the reversal paths (the second release's
 * reversals are refunds by reversal: their paths and settings are kept); a refund sent by B2C names its own
 * paths, refund/b2c/…, so its results never reach the payouts flow (nor a payout's the refunds flow).
 * And the status-query sweep of both. docs/mpesa.md#refunds says why.
 */
import { kindCallback, type DarajaFlow } from "../shared/flow.js";
import { applyStoredRefundCallback, parseRefundCallback } from "./refund-callbacks.js";
import { queryDueRefunds } from "./refund-reconciliation.js";

const refundCallback = kindCallback(parseRefundCallback, applyStoredRefundCallback);

export const refundsFlow = {
  name: "refunds",
  callbacks: {
    reversal_result: refundCallback(
      "reversal_result",
      "reversal/result",
      { setting: "MOMO_REVERSAL_RESULT_URL", publicDefault: true },
      {
        summary: "Reversal result",
        body:
          'Body: `{ Result: { ResultCode (0 or e.g. "R000002"), ResultDesc, OriginatorConversationID, ' +
          "ConversationID, TransactionID, ResultParameters? } }`. Settles a refund by reversal " +
          "(the payment's `reversal`).",
      },
    ),
    reversal_timeout: refundCallback(
      "reversal_timeout",
      "reversal/timeout",
      { setting: "MOMO_REVERSAL_TIMEOUT_URL", publicDefault: true },
      {
        summary: "Reversal queue time-out",
        body: "The refund by reversal becomes unknown and a Transaction Status query is scheduled.",
      },
    ),
    // No setting of its own: the result URL with /reversal/result → /reversal/status.
    reversal_status: refundCallback(
      "reversal_status",
      "reversal/status",
      { besides: "reversal_result", publicDefault: true },
      {
        summary: "A reversal's Transaction Status result (and its time-out)",
        body: "Settles a pending or unknown refund by reversal.",
      },
    ),
    // No settings of their own: beside the reversal URLs (/reversal/result → /refund/b2c/result, …).
    refund_b2c_result: refundCallback(
      "refund_b2c_result",
      "refund/b2c/result",
      { besides: "reversal_result", publicDefault: true },
      {
        summary: "Result of a refund sent by B2C",
        body:
          "Body: `{ Result: { ResultCode, ResultDesc, OriginatorConversationID, ConversationID, TransactionID, " +
          "ResultParameters? } }`, as a B2C result. Settles the refund.",
      },
    ),
    refund_b2c_timeout: refundCallback(
      "refund_b2c_timeout",
      "refund/b2c/timeout",
      { besides: "reversal_timeout", publicDefault: true },
      {
        summary: "Queue time-out of a refund sent by B2C",
        body: "The refund becomes unknown and a Transaction Status query is scheduled.",
      },
    ),
    refund_b2c_status: refundCallback(
      "refund_b2c_status",
      "refund/b2c/status",
      { besides: "reversal_result", publicDefault: true },
      {
        summary: "A B2C refund's Transaction Status result (and its time-out)",
        body: "Settles a pending or unknown refund sent by B2C.",
      },
    ),
  },
  sweeps: [queryDueRefunds],
} satisfies DarajaFlow;
