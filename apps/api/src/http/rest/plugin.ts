/**
 * The REST paths, served from the same tRPC procedures (mounted at "/*"): each request is matched to
 * the procedure whose `meta.openapi` names its method and path, and its input read, as trpc-to-openapi's
 * handler does (operations.ts, with the library's own exported pieces); the procedure is called through
 * tRPC's public `callTRPCProcedure`, as tRPC's own HTTP handler calls it; the answer is the procedure's
 * output as JSON (an operation that declares `answers`: its file, streamed), or the error envelope. The
 * library's handler is not used: it builds a WHATWG `Request` per call for a signal nothing here reads,
 * and a caller proxy per request to find a procedure it already holds (docs/performance.md);
 * trpc-to-openapi still writes the document (document.ts).
 *
 * What the library's handler did not do our way:
 * - errors answer the envelope `{ success: false, message, error: { code, details } }` (docs/errors.md),
 *   in the answer's language; before a request has a context (no operation at that path, a body
 *   without a JSON content type), the code's own message in the request's language.
 * - a body-less POST (logout, refresh) often comes without a content type; it is read as empty JSON.
 * - the library reads DELETE input from the query string only; a JSON body on DELETE (otp/disable's
 *   password) is merged into the input so secrets never need to travel in URLs.
 */
import {
  answerLocale,
  operationMetaOf,
  toErrorEnvelope,
  type Context,
  type Deps,
  type ErrorEnvelope,
  type FileAnswer,
  type StreamedFile,
} from "@mteja/domain";
import { translate } from "@mteja/i18n";
import { callTRPCProcedure, TRPCError, type AnyRouter } from "@trpc/server";
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { Readable } from "node:stream";
import { getErrorFromUnknown } from "trpc-to-openapi";
import { createRequestContext } from "../context.js";
import { requestLocale } from "../errors.js";
import { createResponseMeta } from "../response-meta.js";
import { createRestOperations, inputOf } from "./operations.js";
import { restMountPattern } from "./route-label.js";

export interface RestOptions {
  router: AnyRouter;
  deps: Deps;
  onError: (error: unknown, path: string | undefined) => void;
}

const bodyMethods = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export const restPlugin: FastifyPluginAsync<RestOptions> = async (app, opts) => {
  // Hooks with `done`, not async: a hook's promise would cost every request its allocation and a turn.
  app.addHook("onRequest", (request, _reply, done) => {
    // Body-less POSTs (logout, refresh) often come without a content type; treat them as an empty JSON body.
    if (bodyMethods.has(request.method) && !request.headers["content-type"] && !Number(request.headers["content-length"] ?? 0)) {
      request.headers["content-type"] = "application/json";
    }
    done();
  });

  app.addHook("preHandler", (request, _reply, done) => {
    if (request.method === "DELETE" && request.body && typeof request.body === "object") {
      request.query = { ...(request.query as object), ...(request.body as object) };
    }
    done();
  });

  const findOperation = createRestOperations(opts.router);
  const responseMeta = createResponseMeta(opts.router);

  async function answer(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const operation = findOperation(request.method, request.url);
    let ctx: Context | undefined;
    try {
      // A HEAD of any path answers 204 (a load balancer's warm-up), as the library's handler did.
      if (!operation && request.method === "HEAD") return send(reply, 204, {}, undefined);
      if (!operation) throw new TRPCError({ code: "NOT_FOUND", message: "Not found" });
      const contentType = request.headers["content-type"];
      if (operation.readsBody && !contentType?.startsWith("application/json")) {
        throw new TRPCError({ code: "UNSUPPORTED_MEDIA_TYPE", message: contentType ? `Unsupported content-type "${contentType}"` : "Missing content-type header" });
      }
      const input = inputOf(operation, request);
      ctx = createRequestContext(opts.deps, request, reply);
      const data: unknown = await callTRPCProcedure({
        router: opts.router,
        path: operation.path,
        type: operation.type,
        getRawInput: async () => input,
        ctx,
        signal: undefined,
        batchIndex: 0,
      });
      const meta = responseMeta({ paths: [operation.path], errors: [], ctx });
      const facts = operationMetaOf(opts.router, operation.path);
      if (facts?.redirects) return sendRedirect(reply, meta.headers, data as { location: string });
      const file = facts?.answers;
      if (file) {
        const onStreamError = (error: unknown) => opts.onError(error, operation.path);
        return await sendFile(reply, meta.status ?? 200, meta.headers, file, data as StreamedFile, onStreamError);
      }
      return send(reply, meta.status ?? 200, meta.headers, data);
    } catch (cause) {
      const error = getErrorFromUnknown(cause);
      opts.onError(error, operation?.path);
      const meta = responseMeta({ paths: operation ? [operation.path] : undefined, errors: [error], ctx });
      return send(reply, meta.status ?? 500, meta.headers, errorBody(error, ctx, request));
    }
  }

  app.route({ method: ["GET", "POST", "PATCH", "PUT", "DELETE"], url: restMountPattern, handler: answer });
};

/** The answer as the library's handler wrote it: a JSON content type, then the operation's headers. */
function send(reply: FastifyReply, status: number, headers: Record<string, string>, body: unknown): FastifyReply {
  void reply.code(status).header("content-type", "application/json");
  for (const [name, value] of Object.entries(headers)) void reply.header(name, value);
  return reply.send(JSON.stringify(body));
}

/** A redirect (`redirects`, Sign in with Google): 302 to the location the procedure chose, no body. */
function sendRedirect(reply: FastifyReply, headers: Record<string, string>, answer: { location: string }): FastifyReply {
  void reply.code(302).header("location", answer.location);
  for (const [name, value] of Object.entries(headers)) void reply.header(name, value);
  return reply.send();
}

/**
 * A file answer (`answers`, docs/reports.md): its chunks streamed as the body, in its media type. The
 * first chunk is made before anything is sent, so what fails early (a wrong date is refused before this;
 * the database away) still answers the error envelope; a failure after that can only cut the body short
 * (no final chunk: the client sees an incomplete answer, never a shorter file that looks whole). A client
 * that goes away stops the reads.
 */
async function sendFile(
  reply: FastifyReply,
  status: number,
  headers: Record<string, string>,
  answer: FileAnswer,
  file: StreamedFile,
  onError: (error: unknown) => void,
): Promise<FastifyReply> {
  const chunks = file.chunks[Symbol.asyncIterator]();
  const first = await chunks.next();
  async function* body(): AsyncGenerator<string> {
    if (!first.done) yield first.value;
    yield* { [Symbol.asyncIterator]: () => chunks };
  }
  // Bytes, not objects: the stream then buffers a few KiB ahead of the socket, not a few chunks.
  const stream = Readable.from(body(), { objectMode: false });
  stream.on("error", onError);
  void reply
    .code(status)
    .header("content-type", `${answer.mediaType}; charset=utf-8`)
    .header("content-disposition", `attachment; filename="${file.filename}"`)
    // The shop's own records: no cache along the way keeps a copy.
    .header("cache-control", "no-store");
  for (const [name, value] of Object.entries(headers)) void reply.header(name, value);
  return reply.send(stream);
}

/**
 * The envelope of an error in the answer's language (the signed-in user's, else the request's), as the
 * error formatter writes it for tRPC; refused before the request had a context, the code's own message
 * in the request's language.
 */
function errorBody(error: TRPCError, ctx: Context | undefined, request: FastifyRequest): ErrorEnvelope["body"] {
  if (ctx) return toErrorEnvelope(error, answerLocale(ctx.request)).body;
  const { body } = toErrorEnvelope(error);
  return { ...body, message: translate(requestLocale(request) ?? "en", `error.${body.error.code}`) };
}
