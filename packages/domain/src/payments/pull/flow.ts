/**
 * Pull Transactions in the flow registry (payments/flows.ts; docs/mpesa.md#recovery): the CallBackURL
 * Daraja is given at registration, and the sweep that pulls each registered short code. Daraja does not
 * document what, if anything, it posts to that URL: a body is stored verbatim and answered, and nothing
 * is applied from it (the pulls are what count).
 */
import { ACCEPTED_ANSWER, defineCallback, type DarajaFlow } from "../shared/flow.js";
import { sweepPulls } from "./pull-sweep.js";

export const pullFlow = {
  name: "pull",
  callbacks: {
    pull_callback: defineCallback({
      path: "pull/callback",
      url: { setting: "MOMO_PULL_CALLBACK_URL", publicDefault: true },
      movesNoMoney: true,
      openapi: {
        summary: "Pull Transactions notice (the CallBackURL given at registration)",
        body:
          "Its body is undocumented by Daraja: stored verbatim and answered; nothing is applied from it (the sweep's " +
          "pulls are what count).",
      },
      parse: (body) =>
        typeof body === "object" && body !== null
          ? { ok: true as const, value: undefined, correlationId: null }
          : { ok: false as const, error: "the body is not a JSON object or array" },
      apply: async () => ({
        answered: ACCEPTED_ANSWER,
        note: "stored: Daraja does not document this body; nothing applied",
      }),
    }),
  },
  sweeps: [sweepPulls],
} satisfies DarajaFlow;
