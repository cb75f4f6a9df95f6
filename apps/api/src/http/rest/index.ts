/**
 * The REST adapter: the procedures of appRouter served as REST paths by trpc-to-openapi, and their
 * OpenAPI document. Everything that knows the library lives in this folder; replacing the library
 * means replacing this folder.
 */
export { restPlugin, type RestOptions } from "./plugin.js";
export { buildOpenApiDocument } from "./document.js";
export { createRestOperationMatcher, restMountPattern } from "./route-label.js";
