/**
 * Reversals in the flow registry (payments/flows.ts): the result, the queue time-out and the
 * Transaction Status result of a reversal, and the status-query sweep.
 */
import { defineCallback, type CallbackDoc, type CallbackUrlRule, type DarajaFlow } from "../shared/flow.js";
import { applyStoredReversalCallback, parseReversalCallback, type ReversalCallbackKind } from "./reversal-callbacks.js";
import { queryDueReversals } from "./reversal-reconciliation.js";

function reversalCallback<const Url extends CallbackUrlRule>(
  kind: ReversalCallbackKind,
  path: string,
  url: Url,
  doc: CallbackDoc,
) {
  return defineCallback({
    path,
    url,
    openapi: doc,
    parse(raw) {
      const parsed = parseReversalCallback(kind, raw);
      return parsed.ok ? { ok: true, value: parsed.value, correlationId: parsed.value.correlationId } : parsed;
    },
    apply: async (deps, callback, stored, authority) => ({
      applied: await applyStoredReversalCallback(deps, stored.id, authority, callback),
    }),
  });
}

export const reversalsFlow = {
  name: "reversals",
  callbacks: {
    reversal_result: reversalCallback(
      "reversal_result",
      "reversal/result",
      { setting: "MOMO_REVERSAL_RESULT_URL", publicDefault: true },
      {
        summary: "Reversal result",
        body:
          'Body: `{ Result: { ResultCode (0 or e.g. "R000002"), ResultDesc, OriginatorConversationID, ' +
          "ConversationID, TransactionID, ResultParameters? } }`. Settles the payment's reversal.",
      },
    ),
    reversal_timeout: reversalCallback(
      "reversal_timeout",
      "reversal/timeout",
      { setting: "MOMO_REVERSAL_TIMEOUT_URL", publicDefault: true },
      {
        summary: "Reversal queue time-out",
        body: "The reversal becomes UNKNOWN and a Transaction Status query is scheduled.",
      },
    ),
    // No setting of its own: the result URL with /reversal/result → /reversal/status.
    reversal_status: reversalCallback(
      "reversal_status",
      "reversal/status",
      { besides: "reversal_result", publicDefault: true },
      {
        summary: "A reversal's Transaction Status result (and its time-out)",
        body: "Settles an UNKNOWN or PENDING reversal.",
      },
    ),
  },
  sweeps: [queryDueReversals],
} satisfies DarajaFlow;
