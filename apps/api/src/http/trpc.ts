import type { AppRouter, Deps } from "@mteja/domain";
import { fastifyTRPCPlugin, type FastifyTRPCPluginOptions } from "@trpc/server/adapters/fastify";
import type { FastifyPluginAsync } from "fastify";
import { createRequestContext } from "./context.js";
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
      createContext: ({ req, res }) => createRequestContext(opts.deps, req, res),
      responseMeta,
      onError: ({ error, path }) => opts.onError(error, path),
    },
  } satisfies FastifyTRPCPluginOptions<AppRouter>);
};
