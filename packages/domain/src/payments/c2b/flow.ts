/**
 * C2B in the flow registry (payments/flows.ts): the validation (answered, nothing applied) and the
 * confirmation (applied once per TransID) Daraja sends for a paybill or till payment.
 */
import { C2B_CONFIRMATION_ANSWER, parseC2bNotification } from "@mteja/daraja";
import { z } from "zod";
import { defineCallback, type DarajaFlow } from "../shared/flow.js";
import { answerC2bValidation, applyStoredC2bConfirmation } from "./c2b-callbacks.js";

function parseNotification(body: unknown) {
  const parsed = parseC2bNotification(body);
  return parsed.ok ? { ok: true as const, value: parsed.value, correlationId: parsed.value.transId } : parsed;
}

export const c2bFlow = {
  name: "c2b",
  callbacks: {
    c2b_validation: defineCallback({
      path: "c2b/validation",
      url: { setting: "MOMO_C2B_VALIDATION_URL", publicDefault: true },
      movesNoMoney: true,
      openapi: {
        summary: "C2B validation (paybill/till payment from the M-Pesa menu)",
        body:
          "Body: `{ TransactionType, TransID, TransTime, TransAmount, BusinessShortCode, BillRefNumber, MSISDN, " +
          '... }`. Answers `{ ResultCode: "0", ResultDesc: "Accepted" }` or a rejection `{ ResultCode: ' +
          '"C2B00012" (invalid account) | "C2B00013" (invalid amount) | "C2B00015" (unknown short code), ' +
          'ResultDesc: "Rejected" }`.',
        answered: {
          description:
            "Stored, then answered: accepted, or rejected with Daraja's code (the customer gets M-Pesa's SMS for it).",
          schema: z.object({
            ResultCode: z.enum(["0", "C2B00012", "C2B00013", "C2B00015"]),
            ResultDesc: z.enum(["Accepted", "Rejected"]),
          }),
        },
      },
      parse: parseNotification,
      async apply(deps, notification, _stored, authority) {
        // Validation changes nothing: the stored row records the answer (a rejection's code).
        const answer = await answerC2bValidation(deps, authority, notification);
        return "refused" in answer ? answer : { answered: answer.body, note: answer.rejection };
      },
    }),
    c2b_confirmation: defineCallback({
      path: "c2b/confirmation",
      url: { setting: "MOMO_C2B_CONFIRMATION_URL", publicDefault: true },
      answer: C2B_CONFIRMATION_ANSWER,
      openapi: {
        summary: "C2B confirmation",
        body:
          "Same body as the validation. Applied once per TransID: pays the intent its BillRefNumber names, or is " +
          'kept unmatched. Answers `{ ResultCode: 0, ResultDesc: "Success" }`.',
        answered: {
          description:
            "Stored and applied once per TransID (or recorded as duplicate/flagged); answered only after the commit.",
          schema: z.object({ ResultCode: z.literal(0), ResultDesc: z.literal("Success") }),
        },
      },
      parse: parseNotification,
      async apply(deps, notification, stored, authority) {
        const { result, keptUnmatched } = await applyStoredC2bConfirmation(deps, stored.id, authority, notification);
        return { applied: result, keptUnmatched };
      },
    }),
  },
} satisfies DarajaFlow;
