/**
 * The API reference:
 * - GET /docs, rendered in the browser by Scalar from the live /openapi.json. Everything it needs is
 *   served from here (its script at /docs/js/scalar.js): no CDN, no web fonts, no telemetry, so it
 *   works on an offline network and tells no third party who reads it.
 *
 * The document itself is built by the REST adapter (rest/document.ts).
 */
import scalar from "@scalar/fastify-api-reference";
import type { FastifyPluginAsync } from "fastify";

export interface DocsOptions {
  /** Where the OpenAPI document is served (same origin). */
  openApiUrl: string;
}

export const docsPlugin: FastifyPluginAsync<DocsOptions> = async (app, opts) => {
  await app.register(scalar, {
    routePrefix: "/docs",
    logLevel: "warn",
    configuration: {
      title: "Mteja API",
      url: opts.openApiUrl,
      withDefaultFonts: false,
      telemetry: false,
      showDeveloperTools: "never",
      hideClientButton: true,
      persistAuth: false,
      // Every operation listed at once: the page is the index of the API.
      defaultOpenAllTags: true,
      // Scalar's hosted AI agent and MCP generator are third-party services: off.
      agent: { disabled: true },
      mcp: { disabled: true },
      // An inline icon, so the browser does not ask for /favicon.ico.
      favicon: "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E%3Ccircle cx='8' cy='8' r='7' fill='%23087f5b'/%3E%3C/svg%3E",
    },
  });
};
