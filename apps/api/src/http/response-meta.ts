import { operationMetaOf, type Context } from "@mteja/domain";
import type { AnyRouter, TRPCError } from "@trpc/server";
import { deprecationHeaders } from "./deprecation.js";
import { envelopeFor } from "./errors.js";

/**
 * Status and Retry-After for both transports, from the same error mapping; a success answers 201 when
 * the procedure declares `successStatus: 201`, 202 when the domain marked the request accepted. A
 * deprecated operation's answers, successes and errors alike, carry its Deprecation and Sunset headers.
 */
export function createResponseMeta(router: AnyRouter) {
  return (opts: { paths?: readonly string[] | undefined; errors: readonly TRPCError[]; ctx?: Context | undefined }) => {
    const headers = deprecatedCallHeaders(router, opts.paths);
    const [error] = opts.errors;
    if (error) {
      const envelope = envelopeFor(error);
      if (envelope.retryAfter !== undefined) headers["Retry-After"] = String(envelope.retryAfter);
      return { status: envelope.status, headers };
    }
    const only = opts.paths?.length === 1 ? opts.paths[0]! : undefined;
    if (only !== undefined && operationMetaOf(router, only)?.successStatus === 201) return { status: 201, headers };
    // Taken, outcome not known yet (a payment or payout whose Daraja answer proved nothing).
    if (only !== undefined && opts.ctx?.request.isAccepted()) return { status: 202, headers };
    return { headers };
  };
}

/** The Deprecation headers of the request's calls (a tRPC batch with any deprecated call carries them). */
function deprecatedCallHeaders(router: AnyRouter, paths: readonly string[] | undefined): Record<string, string> {
  for (const path of paths ?? []) {
    const deprecated = operationMetaOf(router, path)?.deprecated;
    if (deprecated) return deprecationHeaders(deprecated);
  }
  return {};
}
