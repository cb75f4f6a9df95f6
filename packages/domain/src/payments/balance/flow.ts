/**
 * Account Balance in the flow registry (payments/flows.ts): the result and the queue time-out of a
 * shop's request for its B2C short code's balance (docs/mpesa.md#account-balance). No money moves, and
 * nothing is swept: a request whose result never comes stays pending, and the shop asks again.
 */
import { kindCallback, type DarajaFlow } from "../shared/flow.js";
import { applyStoredBalanceCallback, parseBalanceCallback } from "./balance-callbacks.js";
import { BALANCE_FLOW } from "./balance-rows.js";
import { balanceMessages } from "./messages.js";

const balanceCallback = kindCallback(parseBalanceCallback, applyStoredBalanceCallback, { movesNoMoney: true });

export const balanceFlow = {
  name: BALANCE_FLOW,
  messages: balanceMessages,
  callbacks: {
    balance_result: balanceCallback(
      "balance_result",
      "balance/result",
      { setting: "MOMO_BALANCE_RESULT_URL", publicDefault: true },
      {
        summary: "Account Balance result",
        body:
          "Body: `{ Result: { ResultCode, ResultDesc, OriginatorConversationID, ConversationID, ResultParameters: " +
          '{ ResultParameter: [{ Key: "AccountBalance", Value: "Working Account|KES|current|available|reserved|' +
          'uncleared&…" }, { Key: "BOCompletedTime" }] } } }`. Completes the shop\'s balance request.',
      },
    ),
    balance_timeout: balanceCallback(
      "balance_timeout",
      "balance/timeout",
      { setting: "MOMO_BALANCE_TIMEOUT_URL", publicDefault: true },
      { summary: "Account Balance queue time-out", body: "The shop's balance request fails; no result follows." },
    ),
  },
} satisfies DarajaFlow;
