import type { Context } from "@mteja/domain";
import type { TRPCError } from "@trpc/server";
import { envelopeFor } from "./errors.js";

/** Operations that create a resource answer 201. */
export const createdProcedures: ReadonlySet<string> = new Set(["auth.register", "addresses.create"]);

/** Operations that answer 202 when the domain says the request was taken but its outcome is not known yet (documented in /openapi.json). */
export const acceptedProcedures: ReadonlyMap<string, string> = new Map([
  [
    "payments.stkPush",
    "Accepted, outcome unknown: Daraja's answer proved nothing (a gateway error, a 5xx, a time-out after sending). The prompt may be on the phone; the payment stays PENDING with checkoutRequestId and merchantRequestId null and is settled by its callback, or becomes TIMEOUT. It is never sent again; a retry with the same Idempotency-Key answers this again.",
  ],
  [
    "payments.b2c",
    'Accepted, outcome unknown: Daraja\'s answer proved nothing (a gateway error, a 5xx, a time-out after sending). The payout is UNKNOWN (conversationId null) and is settled by a Transaction Status query. Never send it again: a retry with the same Idempotency-Key answers this again.',
  ],
]);

/** Status and Retry-After for both transports, from the same error mapping. */
export function responseMeta(opts: { paths?: readonly string[] | undefined; errors: readonly TRPCError[]; ctx?: Context | undefined }) {
  const [error] = opts.errors;
  if (error) {
    const envelope = envelopeFor(error);
    const headers: Record<string, string> = {};
    if (envelope.retryAfter !== undefined) headers["Retry-After"] = String(envelope.retryAfter);
    return { status: envelope.status, headers };
  }
  if (opts.paths?.length === 1 && createdProcedures.has(opts.paths[0]!)) return { status: 201 };
  // Taken, outcome not known yet (a payment or payout whose Daraja answer proved nothing).
  if (opts.paths?.length === 1 && opts.ctx?.request.isAccepted()) return { status: 202 };
  return {};
}
