/**
 * B2C payouts in the flow registry (payments/flows.ts): the result, the queue time-out and the
 * Transaction Status result of a payout, and the status-query sweep.
 */
import { defineCallback, type CallbackDoc, type CallbackUrlRule, type DarajaFlow } from "../shared/flow.js";
import { applyStoredPayoutCallback, parsePayoutCallback, type PayoutCallbackKind } from "./payout-callbacks.js";
import { queryDuePayouts } from "./payout-reconciliation.js";

function payoutCallback<const Url extends CallbackUrlRule>(
  kind: PayoutCallbackKind,
  path: string,
  url: Url,
  doc: CallbackDoc,
) {
  return defineCallback({
    path,
    url,
    openapi: doc,
    parse(raw) {
      const parsed = parsePayoutCallback(kind, raw);
      return parsed.ok ? { ok: true, value: parsed.value, correlationId: parsed.value.correlationId } : parsed;
    },
    apply: async (deps, callback, stored, authority) => ({
      applied: await applyStoredPayoutCallback(deps, stored.id, authority, callback.outcome, callback.ids),
    }),
  });
}

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
