import { DomainError, type AppRouter, type Deps } from "@mteja/domain";
import { TRPCError } from "@trpc/server";
import { incomingMessageToRequest } from "@trpc/server/adapters/node-http";
import { resolveResponse } from "@trpc/server/http";
import type { FastifyPluginAsync, FastifyReply } from "fastify";
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

/**
 * Whether tRPC's answer is one JSON document (a query, a mutation, a batch) rather than a stream (an
 * SSE subscription, a jsonl batch): tRPC marks streams by content type or chunked transfer.
 */
function isWholeDocument(response: Response): boolean {
  return response.body !== null && response.headers.get("transfer-encoding") === null && response.headers.get("content-type") !== "text/event-stream";
}

/** Status and headers of tRPC's answer onto Fastify's reply. */
function copyHead(response: Response, reply: FastifyReply): void {
  void reply.code(response.status);
  for (const [name, value] of response.headers) void reply.header(name, value);
}

/**
 * The typed tRPC transport at /trpc for first-party frontends (batching on, at most TRPC_MAX_BATCH_CALLS calls).
 *
 * Mounted here rather than with tRPC's `fastifyTRPCPlugin`, which does the same two steps (the Fetch
 * `Request`, `resolveResponse`) and then hands Fastify the `Response` itself: Fastify sends that as a web
 * stream, chunked, through a stream reader per call. A whole JSON answer is read as text and sent as
 * one string instead (one write with a Content-Length); streams (subscriptions, jsonl) still go out as
 * streams. The measured difference is in docs/performance.md.
 */
export const trpcPlugin: FastifyPluginAsync<TrpcMountOptions> = async (app, opts) => {
  // tRPC reads bodies itself, as text (what fastifyTRPCPlugin registers too; scoped to this plugin).
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_request, body, done) => done(null, body));
  const responseMeta = createResponseMeta(opts.router);

  app.all<{ Params: { path: string } }>("/trpc/:path", async (request, reply) => {
    const raw = request.raw as typeof request.raw & { body?: unknown };
    if (request.body !== undefined) raw.body = request.body;
    const response = await resolveResponse<AppRouter>({
      router: opts.router,
      allowBatching: true,
      maxBatchSize: TRPC_MAX_BATCH_CALLS,
      req: incomingMessageToRequest(raw, reply.raw, { maxBodySize: null }),
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
    copyHead(response, reply);
    if (isWholeDocument(response)) return reply.send(await response.text());
    return reply.send(response.body);
  });
};
