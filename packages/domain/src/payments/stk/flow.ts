/** STK push (Lipa na M-Pesa Online) in the flow registry (payments/flows.ts): its result callback and its sweeps. */
import { parseStkCallback } from "@mteja/daraja";
import { defineCallback, type DarajaFlow } from "../shared/flow.js";
import { applyStoredStkCallback, storeReadingPayment } from "./stk-callbacks.js";
import { queryDuePayments, sweepHeldCallbacks, timeOutPromptsWithoutId } from "./stk-reconciliation.js";
import { referenceFromParameter } from "./unknown-prompts.js";

export const stkFlow = {
  name: "stk",
  callbacks: {
    stkpush: defineCallback({
      path: "stkpush",
      url: { setting: "MOMO_CALLBACK_URL" },
      openapi: {
        summary: "STK push result",
        body:
          "Body: `{ Body: { stkCallback: { MerchantRequestID, CheckoutRequestID, ResultCode, ResultDesc, " +
          "CallbackMetadata? } } }`.",
      },
      parse(body, received) {
        const parsed = parseStkCallback(body);
        if (!parsed.ok) return parsed;
        const accountReference = referenceFromParameter(received.reference);
        const value = { callback: parsed.value, paysIntent: received.paysIntent === true };
        return { ok: true, value, correlationId: parsed.value.checkoutRequestId, accountReference };
      },
      // The payment is read by the statement that stores the callback, for the apply without locks (which a
      // prompt paying an intent does not take: its settlement takes locks).
      storeReading: ({ callback, paysIntent }) => (paysIntent ? undefined : storeReadingPayment(callback)),
      apply: async (deps, { callback, paysIntent }, stored, _by, named) => ({
        applied: await applyStoredStkCallback(deps, stored, callback, { paysIntent, named }),
      }),
    }),
  },
  // Held callbacks first: a prompt they settle is then neither timed out nor queried.
  sweeps: [sweepHeldCallbacks, timeOutPromptsWithoutId, queryDuePayments],
} satisfies DarajaFlow;
