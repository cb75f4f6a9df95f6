/**
 * The REST paths, served from the same tRPC procedures by trpc-to-openapi (mounted at "/*").
 *
 * What the library does not do our way (docs/errors.md) is wrapped here, not forked:
 * - its error body adds tRPC fields (`code`, `data`, `issues`); onSend reduces it to the envelope
 *   `{ success: false, message, error: { code, details } }`, and gives an input error back the message
 *   the error formatter wrote (the library replaces it with "Input validation failed"), in the
 *   answer's language.
 * - a body-less POST (logout, refresh) often comes without a content type; it is read as empty JSON.
 * - it reads DELETE input from the query string only; a JSON body on DELETE (otp/disable's password)
 *   is merged into the input so secrets never need to travel in URLs.
 * - its Fastify adapter reshapes Fastify's request and reply on every request and aborts a signal after
 *   every answer (node-pair.ts); the mount below hands the library's Node handler thin views instead,
 *   and returns the reply it used (the handler resolves before the reply is written, so an
 *   asynchronous onSend hook would otherwise make Fastify send a second, empty reply).
 */
import { answerLocale, errorStatus, type Context, type Deps, type ErrorCode } from "@mteja/domain";
import { translate } from "@mteja/i18n";
import type { AnyRouter } from "@trpc/server";
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { createOpenApiNodeHttpHandler } from "trpc-to-openapi";
import { createRequestContext } from "../context.js";
import { requestLocale } from "../errors.js";
import { createResponseMeta } from "../response-meta.js";
import { RestRequest, RestResponse } from "./node-pair.js";
import { restMountPattern } from "./route-label.js";

export interface RestOptions {
  router: AnyRouter;
  deps: Deps;
  onError: (error: unknown, path: string | undefined) => void;
}

/** An error answer as the library writes it: our envelope's fields plus tRPC's `code` and `issues`. */
interface LibraryErrorBody {
  success?: boolean;
  message?: string;
  error?: { code?: ErrorCode };
  code?: string;
  issues?: unknown;
}

const bodyMethods = new Set(["POST", "PUT", "PATCH", "DELETE"]);

const contextKey = Symbol("restContext");
type WithContext = FastifyRequest & { [contextKey]: Context | null };

export const restPlugin: FastifyPluginAsync<RestOptions> = async (app, opts) => {
  app.addHook("onRequest", async (request) => {
    // Body-less POSTs (logout, refresh) often come without a content type; treat them as an empty JSON body.
    if (bodyMethods.has(request.method) && !request.headers["content-type"] && !Number(request.headers["content-length"] ?? 0)) {
      request.headers["content-type"] = "application/json";
    }
  });

  app.addHook("preHandler", async (request) => {
    if (request.method === "DELETE" && request.body && typeof request.body === "object") {
      request.query = { ...(request.query as object), ...(request.body as object) };
    }
  });

  // The domain's view of each request, for the language of the library's own input-error message. Kept
  // on the request rather than in a WeakMap: V8's scavenger holds a long-lived WeakMap's values
  // strongly, and each context refers to its request, so every request would outlive its answer into
  // the old space until the next full collection (docs/performance.md, "Promotion per request").
  app.decorateRequest(contextKey, null);

  app.addHook("onSend", async (request, reply, payload) => {
    if (reply.statusCode < 400 || typeof payload !== "string") return payload;
    try {
      const body = JSON.parse(payload) as LibraryErrorBody;
      if (body.success !== false || !body.error) return payload;
      return JSON.stringify({ success: false, message: restMessage(body, (request as WithContext)[contextKey] ?? undefined, request), error: body.error });
    } catch {
      return payload;
    }
  });

  /**
   * The message the formatter wrote, except where the library answers on its own: an input error
   * (replaced by "Input validation failed") and a path no procedure serves (answered before any
   * context exists). Those get their code's message in the answer's language.
   */
  function restMessage(body: LibraryErrorBody, ctx: Context | undefined, request: FastifyRequest): string | undefined {
    const code = body.error?.code;
    if (body.code === undefined) return body.message; // not the library's answer (Fastify's error handler wrote it)
    if (body.issues !== undefined) return translate(answerLocale(ctx?.request), "error.VALIDATION_ERROR");
    if (!ctx && code && code in errorStatus) return translate(requestLocale(request) ?? "en", `error.${code}`);
    return body.message;
  }

  const handle = createOpenApiNodeHttpHandler({
    router: opts.router,
    createContext: ({ req, res }: { req: RestRequest; res: RestResponse }) => {
      const ctx = createRequestContext(opts.deps, req.fastify, res.reply);
      (req.fastify as WithContext)[contextKey] = ctx;
      return ctx;
    },
    responseMeta: createResponseMeta(opts.router),
    onError: ({ error, path }: { error: unknown; path?: string }) => opts.onError(error, path),
  } as never) as unknown as (req: RestRequest, res: RestResponse) => Promise<void>;

  app.route({
    method: ["GET", "POST", "PATCH", "PUT", "DELETE"],
    url: restMountPattern,
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      await handle(new RestRequest(request), new RestResponse(reply));
      return reply;
    },
  });
};
