/**
 * The REST adapter: the procedures of appRouter served as REST paths (our handler on trpc-to-openapi's
 * routing and input pieces), and their OpenAPI document (trpc-to-openapi's generator). Everything that
 * knows the library lives in this folder; replacing the library means replacing this folder.
 */
export { restPlugin, type RestOptions } from "./plugin.js";
export { buildOpenApiDocument } from "./document.js";
export { createRestOperationMatcher, restMountPattern } from "./route-label.js";
