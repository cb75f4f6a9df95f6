/**
 * What a JSON request body must be before anything parses it further (docs/http.md#bodies): an
 * object, nested at most 32 levels, without a `__proto__` key. Both checks read the raw text in one linear pass,
 * so a body nested thousands of levels costs no recursion anywhere (JSON.parse, the REST adapter, zod).
 * The Fastify JSON parser (REST) and a hook of the tRPC mount (which parses bodies itself) apply it.
 */
import { DomainError } from "@mteja/domain";
import type { FastifyInstance } from "fastify";

export const maxJsonDepth = 32;

const openers = new Set(["{", "["]);
const closers = new Set(["}", "]"]);

/** True when the text opens more than `max` objects/arrays at once; brackets inside strings do not count. */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index]!;
    if (inString) {
      if (char === "\\") index += 1;
      else if (char === '"') inString = false;
    } else if (char === '"') {
      inString = true;
    } else if (openers.has(char)) {
      depth += 1;
      if (depth > max) return true;
    } else if (closers.has(char)) {
      depth -= 1;
    }
  }
  return false;
}

/**
 * True when an object in the text has the key `__proto__`, however it is escaped. Fastify's own parser
 * refuses such bodies; tRPC's JSON.parse would not, so the rule is checked here for both.
 */
function hasProtoKey(text: string): boolean {
  if (!text.includes("proto") && !text.includes("\\u")) return false;
  let found = false;
  try {
    JSON.parse(text, (key, value: unknown) => {
      if (key === "__proto__") found = true;
      return value;
    });
  } catch {
    return false; // not JSON: the parser answers that
  }
  return found;
}

/** The reason a non-empty JSON body is refused, or undefined. JSON syntax itself is left to the parser. */
export function jsonBodyProblem(text: string): DomainError | undefined {
  if (!text.trimStart().startsWith("{")) {
    return new DomainError("MALFORMED_REQUEST", "http.body_not_object");
  }
  if (nestsDeeperThan(text, maxJsonDepth)) {
    return new DomainError("MALFORMED_REQUEST", { key: "http.body_too_deep", params: { max: maxJsonDepth } });
  }
  if (hasProtoKey(text)) {
    return new DomainError("MALFORMED_REQUEST", "http.body_proto_key");
  }
  return undefined;
}

/**
 * The service's JSON body parser (every route but the tRPC mount, which reads bodies itself): empty
 * JSON bodies (POST /logout with a content type but nothing in it) are an empty input, not an error;
 * anything else must pass jsonBodyProblem before it is parsed.
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  const defaultJsonParser = app.getDefaultJsonParser("error", "ignore");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    const text = body.toString();
    if (text.trim() === "") return done(null, undefined);
    const problem = jsonBodyProblem(text);
    if (problem) return done(problem, undefined);
    defaultJsonParser(request, text, done);
  });
}
