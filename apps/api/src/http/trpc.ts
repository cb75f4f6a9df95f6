import { DomainError, type AppRouter, type Deps } from "@mteja/domain";
import { TRPCError } from "@trpc/server";
import { resolveResponseParts } from "@trpc/server/http";
import type { FastifyPluginAsync } from "fastify";
import { createRequestContext } from "./context.js";
import { jsonBodyProblem } from "./json-body.js";
import { requestLocale } from "./errors.js";
import { createResponseMeta } from "./response-meta.js";
import { trpcRequestOf } from "./trpc-request.js";

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

/**
 * The typed tRPC transport at /trpc for first-party frontends (batching on, at most TRPC_MAX_BATCH_CALLS calls).
 *
 * Mounted here rather than with tRPC's `fastifyTRPCPlugin`, which builds a Fetch `Request`, runs
 * `resolveResponse` and hands Fastify the `Response`: Fastify sends that as a web stream, chunked,
 * through a stream reader per call. Here a bodiless request is given to tRPC without a Fetch `Request`
 * (trpc-request.ts), and `resolveResponseParts` gives tRPC's status, headers and body: a whole JSON
 * answer is a string, sent in one write with a Content-Length; streams (subscriptions, jsonl) go out as
 * streams. `resolveResponseParts` is `resolveResponse` without the `Response`, from the one dependency
 * patch we keep (patches/@trpc__server@11.25.2.patch): through tRPC's public `resolveResponse`, a
 * `/trpc` query cost 60 % more CPU, a third of it the `Response` (docs/performance.md, "Dependency patches").
 */
export const trpcPlugin: FastifyPluginAsync<TrpcMountOptions> = async (app, opts) => {
  // tRPC reads bodies itself, as text (what fastifyTRPCPlugin registers too; scoped to this plugin).
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_request, body, done) => done(null, body));
  const responseMeta = createResponseMeta(opts.router);

  app.all<{ Params: { path: string } }>("/trpc/:path", async (request, reply) => {
    const raw = request.raw as typeof request.raw & { body?: unknown };
    if (request.body !== undefined) raw.body = request.body;
    const answer = await resolveResponseParts<AppRouter>({
      router: opts.router,
      allowBatching: true,
      maxBatchSize: TRPC_MAX_BATCH_CALLS,
      req: trpcRequestOf(raw, reply.raw),
      path: request.params.path,
      error: null,
      createContext: async () => {
        // tRPC reads a JSON body as text and parses it only after making the context: the body rules come first.
        const problem = typeof request.body === "string" && request.body.trim() !== "" ? jsonBodyProblem(request.body) : undefined;
        // Refused before a context exists: the answer's language is the request's (nobody is signed in yet).
        if (problem) throw new TRPCError({ code: "BAD_REQUEST", message: problem.message, cause: new DomainError(problem.code, problem.text, { locale: requestLocale(request) }) });
        return createRequestContext(opts.deps, request, reply);
      },
      responseMeta,
      onError: ({ error, path }) => opts.onError(error, path),
    });
    void reply.code(answer.status);
    for (const [name, value] of answer.headers) {
      // tRPC's own Vary (trpc-accept, accept) joins what the CORS hook already said (Origin) instead of replacing it.
      const vary = name === "vary" ? reply.getHeader("vary") : undefined;
      void reply.header(name, vary ? `${String(vary)}, ${value}` : value);
    }
    return reply.send(answer.body);
  });
};
