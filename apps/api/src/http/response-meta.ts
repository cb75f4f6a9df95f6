import type { TRPCError } from "@trpc/server";
import { envelopeFor } from "./errors.js";

/** Operations that create a resource answer 201. */
export const createdProcedures: ReadonlySet<string> = new Set(["auth.register", "addresses.create"]);

/** Status and Retry-After for both transports, from the same error mapping. */
export function responseMeta(opts: { paths?: readonly string[] | undefined; errors: readonly TRPCError[] }) {
  const [error] = opts.errors;
  if (error) {
    const envelope = envelopeFor(error);
    const headers: Record<string, string> = {};
    if (envelope.retryAfter !== undefined) headers["Retry-After"] = String(envelope.retryAfter);
    return { status: envelope.status, headers };
  }
  if (opts.paths?.length === 1 && createdProcedures.has(opts.paths[0]!)) return { status: 201 };
  return {};
}
