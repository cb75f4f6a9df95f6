/**
 * The OpenAPI document of the REST mount: trpc-to-openapi generates it from the procedures' zod
 * schemas and `meta.openapi`; describeOperations adds what the generator cannot know.
 */
import { operationMetas, type Credential, type OperationMeta } from "@mteja/domain";
import type { AnyRouter } from "@trpc/server";
import { generateOpenApiDocument, type OpenAPIObject, type OpenApiRouter } from "trpc-to-openapi";

/**
 * The OpenAPI 3 document of every REST operation, generated from the procedures' zod schemas, plus
 * `plainRoutes`: routes outside the router documented by hand (Daraja's callbacks).
 */
export function buildOpenApiDocument(router: OpenApiRouter, baseUrl: string, plainRoutes: Record<string, unknown> = {}): OpenAPIObject {
  const document = generateOpenApiDocument(router, {
    title: "Mteja API",
    description:
      "Customer accounts, delivery addresses and M-Pesa payments for Kenyan online shops. " +
      "Success bodies are `{ success: true, data, message }`; errors are `{ success: false, message, error: { code, details } }`. " +
      "The auth API requires the `X-Tenant-ID` header.",
    version: "1.0.0",
    baseUrl,
    paths: plainRoutes as never,
    securitySchemes,
  });
  // Per-operation security, 201/202 answers, the error envelope, DELETE bodies.
  return describeOperations(document, router);
}

/** Security schemes of the service, one per Credential of a procedure but "none". */
const securitySchemes = {
  Authorization: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "Access token (ES256 JWT) from register, login, refresh or otp/validate. 15 minutes by default." },
  refreshCookie: {
    type: "apiKey",
    in: "cookie",
    name: "refresh_token",
    description: "HttpOnly refresh cookie set by register, login and otp/validate (Path=/api/v1/auth, SameSite=Strict); rotated by every refresh.",
  },
  adminApiKey: { type: "http", scheme: "bearer", description: "The operator's ADMIN_API_KEY (the admin API answers 404 when it is not set)." },
  apiKey: {
    type: "http",
    scheme: "bearer",
    bearerFormat: "mk_…",
    description: "A tenant's API key (mk_…), for a shop's servers; created with the admin API, it names its tenant (X-Tenant-ID optional, must match).",
  },
} as const;

/** The security requirement of an operation, from the credential its procedure builder declares. */
const securityOf: Record<Credential, Array<Record<string, string[]>>> = {
  none: [],
  bearer: [{ Authorization: [] }],
  refreshCookie: [{ refreshCookie: [] }],
  adminKey: [{ adminApiKey: [] }],
  apiKey: [{ apiKey: [] }],
  // Either one (OpenAPI: alternatives are separate requirement objects).
  apiKeyOrAdmin: [{ apiKey: [] }, { Authorization: [] }],
};

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
const methods = ["get", "post", "put", "patch", "delete"] as const;

/**
 * What trpc-to-openapi cannot know, added to the generated document from each procedure's declared
 * facts (operation-meta.ts): its credential, 201 or 202 answers, the error envelope with an example
 * per error code, and a DELETE's JSON body (never secrets in the query string).
 */
export function describeOperations(document: OpenAPIObject, router: AnyRouter): OpenAPIObject {
  const metaByOperation = new Map<string, OperationMeta>();
  for (const [, meta] of operationMetas(router)) {
    if (meta.openapi) metaByOperation.set(`${meta.openapi.method.toUpperCase()} ${meta.openapi.path}`, meta);
  }

  // A JSON copy, not structuredClone: the generator shares response objects between operations.
  const doc = JSON.parse(JSON.stringify(document)) as { paths?: Record<string, Json>; components?: { schemas?: Json } };
  const components = (doc.components ??= {});
  // trpc-to-openapi's own error schemas describe tRPC's error body, not the envelope the REST mount sends.
  components.schemas = {
    ...Object.fromEntries(Object.entries(components.schemas ?? {}).filter(([name]) => !name.startsWith("error."))),
    ErrorEnvelope: errorEnvelopeSchema,
  };

  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of methods) {
      const operation = item[method] as Json | undefined;
      if (!operation) continue;
      const meta = metaByOperation.get(`${method.toUpperCase()} ${path}`);
      // The generator's own `protect` flag is not used: an operation's security is its builder's credential.
      if (typeof operation.operationId === "string") operation.security = securityOf[meta?.credential ?? "none"];
      if (meta?.successStatus === 201) answerCreated(operation);
      if (meta?.acceptedDescription) answerAcceptedToo(operation, meta.acceptedDescription);
      if (method === "delete") moveQueryToBody(operation);
      addRequestExamples(operation);
      describeErrors(operation, declaredErrors(meta));
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

/** Operations that create a resource answer 201 (`successStatus`), not the generator's 200. */
function answerCreated(operation: Json): void {
  const responses = (operation.responses ?? {}) as Record<string, Json>;
  if (!responses["200"]) return;
  responses["201"] = responses["200"];
  delete responses["200"];
}

/** Operations that may also answer 202 (`acceptedDescription`): the same body as the 200, described. */
function answerAcceptedToo(operation: Json, description: string): void {
  const responses = (operation.responses ?? {}) as Record<string, Json>;
  if (!responses["200"]) return;
  responses["202"] = { ...responses["200"], description };
}

function declaredErrors(meta: OperationMeta | undefined): Record<string, string> | undefined {
  const declared = meta?.openapi?.errorResponses;
  return declared ? Object.fromEntries(Object.entries(declared).map(([status, text]) => [String(status), String(text)])) : undefined;
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
