import { operationMetaOf, type Context } from "@mteja/domain";
import type { AnyRouter, TRPCError } from "@trpc/server";
import { envelopeFor } from "./errors.js";

/**
 * Status and Retry-After for both transports, from the same error mapping; a success answers 201 when
 * the procedure declares `successStatus: 201`, 202 when the domain marked the request accepted.
 */
export function createResponseMeta(router: AnyRouter) {
  return (opts: { paths?: readonly string[] | undefined; errors: readonly TRPCError[]; ctx?: Context | undefined }) => {
    const [error] = opts.errors;
    if (error) {
      const envelope = envelopeFor(error);
      const headers: Record<string, string> = {};
      if (envelope.retryAfter !== undefined) headers["Retry-After"] = String(envelope.retryAfter);
      return { status: envelope.status, headers };
    }
    const only = opts.paths?.length === 1 ? opts.paths[0]! : undefined;
    if (only !== undefined && operationMetaOf(router, only)?.successStatus === 201) return { status: 201 };
    // Taken, outcome not known yet (a payment or payout whose Daraja answer proved nothing).
    if (only !== undefined && opts.ctx?.request.isAccepted()) return { status: 202 };
    return {};
  };
}
