import { DomainError, type AppRouter, type Deps } from "@mteja/domain";
import { TRPCError } from "@trpc/server";
import { fastifyTRPCPlugin, type FastifyTRPCPluginOptions } from "@trpc/server/adapters/fastify";
import type { FastifyPluginAsync } from "fastify";
import { createRequestContext } from "./context.js";
import { jsonBodyProblem } from "./json-body.js";
import { requestLocale } from "./errors.js";
import { createResponseMeta } from "./response-meta.js";

export interface TrpcMountOptions {
  router: AppRouter;
  deps: Deps;
  onError: (error: unknown, path: string | undefined) => void;
}

/**
 * The most calls one tRPC batch may hold. A larger batch is refused whole (400 MALFORMED_REQUEST, none
 * of its calls run), so one request cannot hold hundreds of calls; @mteja/client batches at most this many.
 */
export const TRPC_MAX_BATCH_CALLS = 10;

/** The typed tRPC transport at /trpc for first-party frontends (batching on, at most TRPC_MAX_BATCH_CALLS calls). */
export const trpcPlugin: FastifyPluginAsync<TrpcMountOptions> = async (app, opts) => {
  await app.register(fastifyTRPCPlugin, {
    prefix: "/trpc",
    trpcOptions: {
      router: opts.router,
      allowBatching: true,
      maxBatchSize: TRPC_MAX_BATCH_CALLS,
      createContext: ({ req, res }) => {
        // tRPC reads a JSON body as text and parses it only after making the context: the body rules come first.
        const problem = typeof req.body === "string" && req.body.trim() !== "" ? jsonBodyProblem(req.body) : undefined;
        // Refused before a context exists: the answer's language is the request's (nobody is signed in yet).
        if (problem) throw new TRPCError({ code: "BAD_REQUEST", message: problem.message, cause: new DomainError(problem.code, problem.text, { locale: requestLocale(req) }) });
        return createRequestContext(opts.deps, req, res);
      },
      responseMeta: createResponseMeta(opts.router),
      onError: ({ error, path }) => opts.onError(error, path),
    },
  } satisfies FastifyTRPCPluginOptions<AppRouter>);
};
