import type { AppRouter, Deps } from "@mteja/domain";
import { TRPCError } from "@trpc/server";
import { fastifyTRPCPlugin, type FastifyTRPCPluginOptions } from "@trpc/server/adapters/fastify";
import type { FastifyPluginAsync } from "fastify";
import { createRequestContext } from "./context.js";
import { jsonBodyProblem } from "./json-body.js";
import { responseMeta } from "./response-meta.js";

export interface TrpcMountOptions {
  router: AppRouter;
  deps: Deps;
  onError: (error: unknown, path: string | undefined) => void;
}

/** The typed tRPC transport at /trpc for first-party frontends (batching on). */
export const trpcPlugin: FastifyPluginAsync<TrpcMountOptions> = async (app, opts) => {
  await app.register(fastifyTRPCPlugin, {
    prefix: "/trpc",
    trpcOptions: {
      router: opts.router,
      allowBatching: true,
      createContext: ({ req, res }) => {
        // tRPC reads a JSON body as text and parses it only after making the context: the body rules come first.
        const problem = typeof req.body === "string" && req.body.trim() !== "" ? jsonBodyProblem(req.body) : undefined;
        if (problem) throw new TRPCError({ code: "BAD_REQUEST", message: problem.message, cause: problem });
        return createRequestContext(opts.deps, req, res);
      },
      responseMeta,
      onError: ({ error, path }) => opts.onError(error, path),
    },
  } satisfies FastifyTRPCPluginOptions<AppRouter>);
};
