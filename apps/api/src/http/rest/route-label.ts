import type { OpenAPIObject } from "trpc-to-openapi";

/** The REST mount's one Fastify route: every REST operation is served by it. */
export const restMountPattern = "/*";

const methods = ["get", "post", "put", "patch", "delete"] as const;

/**
 * The REST operation a request is for, by its OpenAPI path ("/api/v1/addresses/{id}"), so that metrics
 * label by operation and never by raw URL. Undefined when no operation of the document matches.
 */
export function createRestOperationMatcher(document: OpenAPIObject): (method: string, path: string) => string | undefined {
  const operations = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    methods
      .filter((method) => method in (item ?? {}))
      .map((method) => ({
        method: method.toUpperCase(),
        path,
        pattern: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+")}/?$`),
      })),
  );
  return (method, path) => operations.find((op) => op.method === method && op.pattern.test(path))?.path;
}
