/**
 * The REST operations of a router, found and fed as trpc-to-openapi's own handler finds and feeds them,
 * with the library's exported pieces: its procedure cache (each `meta.openapi` path as a
 * case-insensitive pattern, path parameters as written in the URL), its reading of the query string,
 * and its zod helpers (which inputs take none, which fields coerce from strings, which take arrays).
 */
import type { AnyRouter } from "@trpc/server";
import type { FastifyRequest } from "fastify";
import {
  acceptsRequestBody,
  coerceSchema,
  createProcedureCache,
  forEachOpenApiProcedure,
  getInputOutputParsers,
  getQuery,
  instanceofZodTypeLikeVoid,
  instanceofZodTypeObject,
  instanceofZodTypeOptional,
  normalizePath,
  unwrapZodType,
  zodSupportsCoerce,
  type OpenApiMethod,
  type OpenApiProcedure,
  type OpenApiRouter,
} from "trpc-to-openapi";
import { ZodArray, type ZodObject } from "zod";

/** What a procedure's input schema says about reading its input from a request, worked out once. */
interface InputPlan {
  /** `z.void()` and the like: the procedure is called without input. */
  none: boolean;
  /** An object input, whose number, boolean, bigint and date fields the library makes coerce from strings. */
  object: ZodObject | undefined;
  /** Its fields that take an array: one query value is given as a one-element array. */
  arrayFields: string[];
}

export interface RestOperation {
  /** The procedure's path in the router ("profile.me"). */
  path: string;
  type: "query" | "mutation";
  /** The path parameters, as they stand in the URL. */
  pathInput: Record<string, string>;
  url: URL;
  /** POST, PUT and PATCH read the body; GET and DELETE the query string (DELETE also its JSON body: plugin.ts). */
  readsBody: boolean;
  input: InputPlan;
}

export function createRestOperations(router: AnyRouter): (method: string, url: string) => RestOperation | undefined {
  const find = createProcedureCache(router as OpenApiRouter);
  const plans = new Map<string, InputPlan>();
  forEachOpenApiProcedure(router._def.procedures, ({ path, procedure }) => void plans.set(path, inputPlanOf(procedure)));
  return (method, url) => {
    // The path as the library reads it: parsed as a URL (dot segments resolved, still percent-encoded), without its end slashes.
    const parsed = new URL(url.startsWith("/") ? `http://127.0.0.1${url}` : url);
    const found = find(method as OpenApiMethod, normalizePath(parsed.pathname));
    if (!found?.procedure) return undefined;
    return {
      path: found.procedure.path,
      type: found.procedure.type,
      pathInput: found.pathInput,
      url: parsed,
      readsBody: acceptsRequestBody(method as OpenApiMethod),
      input: plans.get(found.procedure.path)!,
    };
  };
}

function inputPlanOf(procedure: OpenApiProcedure): InputPlan {
  const schema = unwrapZodType(getInputOutputParsers(procedure).inputParser, true);
  const object = zodSupportsCoerce && instanceofZodTypeObject(schema) ? (schema as unknown as ZodObject) : undefined;
  const arrayFields = Object.entries(object?.shape ?? {})
    .filter(([, field]) => field instanceof ZodArray || (instanceofZodTypeOptional(field) && field.unwrap() instanceof ZodArray))
    .map(([key]) => key);
  return { none: instanceofZodTypeLikeVoid(schema), object, arrayFields };
}

/** The input of a call: the body or the query string, then the path parameters over them. */
export function inputOf(operation: RestOperation, request: FastifyRequest): Record<string, unknown> | undefined {
  const plan = operation.input;
  if (plan.none) return undefined;
  const given = operation.readsBody ? request.body : getQuery(request as never, operation.url);
  const input: Record<string, unknown> = { ...(given as object | undefined), ...operation.pathInput };
  if (plan.object) {
    if (!operation.readsBody) {
      for (const key of plan.arrayFields) if (input[key] !== undefined && !Array.isArray(input[key])) input[key] = [input[key]];
    }
    // What the library does before every call (it sets zod's own coercion on the schema; a no-op once done).
    coerceSchema(plan.object);
  }
  return input;
}
