/**
 * The API reference:
 * - GET /docs, rendered in the browser by Scalar from the live /openapi.json. Everything it needs is
 *   served from here (its script at /docs/js/scalar.js): no CDN, no web fonts, no telemetry, so it
 *   works on an offline network and tells no third party who reads it.
 * - describeOperations(): what trpc-to-openapi cannot know, added to the generated document — which
 *   operations are public, which take the refresh cookie or the admin key, the error envelope
 *   with an example per error code, and a DELETE's JSON body (never secrets in the query string).
 */
import scalar from "@scalar/fastify-api-reference";
import type { AnyRouter } from "@trpc/server";
import type { FastifyPluginAsync } from "fastify";
import type { OpenAPIObject } from "trpc-to-openapi";
import { acceptedProcedures, createdProcedures } from "./response-meta.js";

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

/** Security schemes of the service (merged into components.securitySchemes). */
export const securitySchemes = {
  Authorization: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "Access token (ES256 JWT) from register, login, refresh or otp/validate. 15 minutes by default." },
  refreshCookie: {
    type: "apiKey",
    in: "cookie",
    name: "refresh_token",
    description: "HttpOnly refresh cookie set by register, login and otp/validate (Path=/api/v1/auth, SameSite=Strict); rotated by every refresh.",
  },
  adminApiKey: { type: "http", scheme: "bearer", description: "The operator's ADMIN_API_KEY (the admin API answers 404 when it is not set)." },
} as const;

const cookieOperations = new Set(["POST /api/v1/auth/refresh", "POST /api/v1/auth/logout"]);

/** Example values by field name, for request bodies (cheap, and they make "try it" useful). */
const examples: Record<string, unknown> = {
  name: "Wanjiku Kamau",
  email: "wanjiku@example.com",
  password: "correct horse battery",
  current_password: "correct horse battery",
  new_password: "a new long passphrase",
  phone: "0712345678",
  code: "123456",
  label: "Home",
  recipient_name: "Wanjiku Kamau",
  street: "Moi Avenue 12",
  county: "nairobi",
  town: "Nairobi",
  landmark: "Opposite the Hilton",
  amount: 100,
  reference: "ORDER-1001",
  description: "Order 1001",
  checkoutRequestId: "ws_CO_191220191020363925",
};

type Json = Record<string, unknown>;
interface ProcedureDocs {
  method: string;
  path: string;
  protect?: boolean;
  errorResponses?: Record<string | number, unknown>;
}
const methods = ["get", "post", "put", "patch", "delete"] as const;

export function describeOperations(document: OpenAPIObject, router: AnyRouter): OpenAPIObject {
  const protectedOps = new Set<string>();
  const createdOps = new Set<string>();
  const acceptedOps = new Map<string, string>();
  const errorsByOp = new Map<string, Record<string, string>>();
  for (const [name, procedure] of Object.entries(router._def.procedures as Record<string, { _def: { meta?: { openapi?: ProcedureDocs } } }>)) {
    const meta = procedure._def.meta?.openapi;
    if (!meta) continue;
    const key = `${meta.method.toUpperCase()} ${meta.path}`;
    if (meta.protect) protectedOps.add(key);
    if (createdProcedures.has(name)) createdOps.add(key);
    const accepted = acceptedProcedures.get(name);
    if (accepted) acceptedOps.set(key, accepted);
    if (meta.errorResponses) errorsByOp.set(key, Object.fromEntries(Object.entries(meta.errorResponses).map(([status, text]) => [String(status), String(text)])));
  }

  // A JSON copy, not structuredClone: the generator shares response objects between operations.
  const doc = JSON.parse(JSON.stringify(document)) as { paths?: Record<string, Json>; components?: { schemas?: Json; securitySchemes?: Json } };
  const components = (doc.components ??= {});
  components.securitySchemes = { ...(components.securitySchemes ?? {}), ...securitySchemes };
  // trpc-to-openapi's own error schemas describe tRPC's error body, not the envelope the REST mount sends.
  components.schemas = {
    ...Object.fromEntries(Object.entries(components.schemas ?? {}).filter(([name]) => !name.startsWith("error."))),
    ErrorEnvelope: errorEnvelopeSchema,
  };

  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of methods) {
      const operation = item[method] as Json | undefined;
      if (!operation) continue;
      const key = `${method.toUpperCase()} ${path}`;
      const isProcedure = typeof operation.operationId === "string";
      if (isProcedure) {
        operation.security = path.startsWith("/api/v1/admin/")
          ? [{ adminApiKey: [] }]
          : cookieOperations.has(key)
            ? [{ refreshCookie: [] }]
            : protectedOps.has(key)
              ? [{ Authorization: [] }]
              : [];
      }
      if (createdOps.has(key)) answerCreated(operation);
      const accepted = acceptedOps.get(key);
      if (accepted) answerAcceptedToo(operation, accepted);
      if (method === "delete") moveQueryToBody(operation);
      addRequestExamples(operation);
      describeErrors(operation, errorsByOp.get(key));
    }
  }
  return doc as unknown as OpenAPIObject;
}

const errorEnvelopeSchema = {
  type: "object",
  description: "Every error answer: a human sentence and a stable code (details only for VALIDATION_ERROR).",
  properties: {
    success: { type: "boolean", const: false },
    message: { type: "string" },
    error: {
      type: "object",
      properties: {
        code: { type: "string", description: "The error code, e.g. INVALID_CREDENTIALS." },
        details: {
          type: "array",
          items: { type: "object", properties: { path: { type: "string" }, message: { type: "string" } }, required: ["path", "message"] },
        },
      },
      required: ["code"],
    },
  },
  required: ["success", "message", "error"],
};

/** Operations that create a resource answer 201 (response-meta.ts), not the generator's 200. */
function answerCreated(operation: Json): void {
  const responses = (operation.responses ?? {}) as Record<string, Json>;
  if (!responses["200"]) return;
  responses["201"] = responses["200"];
  delete responses["200"];
}

/** Operations that may also answer 202 (response-meta.ts): the same body as the 200, described. */
function answerAcceptedToo(operation: Json, description: string): void {
  const responses = (operation.responses ?? {}) as Record<string, Json>;
  if (!responses["200"]) return;
  responses["202"] = { ...responses["200"], description };
}

/** Error responses: the envelope, with one example per code the description names. */
function describeErrors(operation: Json, declared: Record<string, string> | undefined): void {
  const responses = (operation.responses ?? {}) as Record<string, Json>;
  for (const [status, response] of Object.entries(responses)) {
    if (Number(status) < 400) continue;
    // trpc-to-openapi shares one description per status across operations; the procedure's own wins.
    const description = declared?.[status] ?? String(response.description ?? "");
    response.description = description;
    const codes = [...new Set(description.match(/\b[A-Z][A-Z_]{3,}\b/g) ?? [])];
    const exampleFor = (code: string) => ({
      success: false,
      message: "A sentence for people.",
      error: code === "VALIDATION_ERROR" ? { code, details: [{ path: "email", message: "Invalid email address" }] } : { code },
    });
    response.content = {
      "application/json": {
        schema: { $ref: "#/components/schemas/ErrorEnvelope" },
        ...(codes.length ? { examples: Object.fromEntries(codes.map((code) => [code, { value: exampleFor(code) }])) } : {}),
      },
    };
  }
}

/** A DELETE also takes its input as a JSON body (apps/api merges it): document that way, not as query secrets. */
function moveQueryToBody(operation: Json): void {
  const parameters = (operation.parameters ?? []) as Json[];
  const query = parameters.filter((p) => p.in === "query");
  if (!query.length || operation.requestBody) return;
  operation.parameters = parameters.filter((p) => p.in !== "query");
  operation.requestBody = {
    required: query.some((p) => p.required),
    content: {
      "application/json": {
        schema: {
          type: "object",
          properties: Object.fromEntries(query.map((p) => [p.name as string, p.schema ?? {}])),
          required: query.filter((p) => p.required).map((p) => p.name as string),
        },
      },
    },
  };
}

function addRequestExamples(operation: Json): void {
  const body = operation.requestBody as { content?: Record<string, { schema?: Json }> } | undefined;
  const properties = body?.content?.["application/json"]?.schema?.properties as Record<string, Json> | undefined;
  for (const [name, schema] of Object.entries(properties ?? {})) {
    if (name in examples && schema.examples === undefined && schema.example === undefined) schema.examples = [examples[name]];
  }
}
