/**
 * The OpenAPI document of the REST mount: trpc-to-openapi generates it from the procedures' zod
 * schemas and `meta.openapi`; describeOperations adds what the generator cannot know.
 */
import {
  errorStatus,
  operationMetas,
  type Credential,
  type Deprecation,
  type ErrorCode,
  type FileAnswer,
  type OperationMeta,
  type StepUp,
  type CaptchaFlow,
  webhookEventCatalogue,
} from "@mteja/domain";
import { z } from "zod";
import type { AnyRouter } from "@trpc/server";
import { generateOpenApiDocument, type OpenAPIObject, type OpenApiRouter } from "trpc-to-openapi";

/** Routes outside the router, documented by hand (Daraja's callbacks), with the security schemes they name. */
export interface PlainRoutes {
  paths: Record<string, unknown>;
  securitySchemes: Record<string, unknown>;
}

/** The OpenAPI 3 document of every REST operation, generated from the procedures' zod schemas, plus `plainRoutes`. */
export function buildOpenApiDocument(
  router: OpenApiRouter,
  baseUrl: string,
  plainRoutes: PlainRoutes = { paths: {}, securitySchemes: {} },
): OpenAPIObject {
  const document = generateOpenApiDocument(router, {
    title: "Mteja API",
    description:
      "Customer accounts, delivery addresses and M-Pesa payments for Kenyan online shops. " +
      "Success bodies are `{ success: true, data, message }`; errors are `{ success: false, message, error: { code, details } }`. " +
      "The auth API requires the `X-Tenant-ID` header.",
    version: "1.0.0",
    baseUrl,
    paths: plainRoutes.paths as never,
    securitySchemes: { ...securitySchemes, ...plainRoutes.securitySchemes } as never,
  });
  // Per-operation security, 201/202 answers, the error envelope, DELETE bodies.
  return { ...describeOperations(document, router), webhooks: describeWebhooks() } as OpenAPIObject;
}

/**
 * The events Mteja POSTs to a shop's endpoints (OpenAPI 3.1 `webhooks`), one per event type, each with
 * the schema of its `data` from the event catalogue and the headers a receiver verifies
 * (docs/webhooks.md#headers-and-signature).
 */
function describeWebhooks(): Record<string, unknown> {
  const header = (description: string, example: string) => ({ required: true, description, schema: { type: "string" }, example });
  return Object.fromEntries(
    Object.entries(webhookEventCatalogue).map(([type, entry]) => {
      const { $schema: _, ...data } = z.toJSONSchema(entry.data, { io: "output" }) as Record<string, unknown>;
      const event = {
        type: "object",
        properties: {
          id: { type: "string", pattern: "^evt_[0-9a-f]{32}$", description: "The event's id: the same on every retry." },
          type: { type: "string", const: type },
          created_at: { type: "string", format: "date-time" },
          tenant_id: { type: "string" },
          livemode: { type: "boolean", description: "The mode of the object it reports: false for test mode (docs/test-mode.md)." },
          data,
        },
        required: ["id", "type", "created_at", "tenant_id", "livemode", "data"],
      };
      const operation = {
        operationId: `webhook-${type.replace(/[._]/g, "-")}`,
        summary: entry.summary,
        description: `The \`${type}\` event, POSTed to each enabled endpoint subscribed to it. Answer 2xx within 10 s; anything else is retried (docs/webhooks.md).`,
        tags: ["webhooks"],
        security: [],
        parameters: [
          { in: "header", name: "Mteja-Event-Id", ...header("The event's id.", "evt_4f1d2c3b5a6978e0d1c2b3a495867f70") },
          { in: "header", name: "Mteja-Event-Type", ...header("The event's type.", type) },
          {
            in: "header",
            name: "Mteja-Signature",
            ...header("`t=<unix seconds>,v1=<hex HMAC-SHA256 of \"<t>.<raw body>\">` under the endpoint's secret.", "t=1795598043,v1=5257a869"),
          },
        ],
        requestBody: { required: true, content: { "application/json": { schema: event } } },
        responses: {
          "200": { description: "Received (any 2xx): the delivery is done." },
          "400": { description: "Refused (a bad signature, say): retried like any other failure." },
        },
      };
      return [type, { post: operation }];
    }),
  );
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
  nominated_number: "0712345678",
  code: "123456",
  label: "Home",
  recipient_name: "Wanjiku Kamau",
  street: "Moi Avenue 12",
  county: "nairobi",
  town: "Nairobi",
  landmark: "Opposite the Hilton",
  amount: 100,
  reference: "ORDER1001",
  description: "Order 1001",
  checkoutRequestId: "ws_CO_191220191020363925",
  "x-tenant-id": "default",
  "idempotency-key": "3f0c9a52-7d1e-4b8f-9c61-2a5d4e8b7f10",
  message: "Done.",
  intent_id: "pi_Q2xhc3NpY0thbmdhTWFuZ28",
  user_id: "6f1c0e56-3b1a-4c52-9d0e-2f4b8a7c1d90",
  merchantRequestId: "29115-34620561-1",
  customerMessage: "Success. Request accepted for processing",
  mpesa_receipt: "SKI3XYZ0AB",
  created_at: "2026-11-25T09:30:00.000Z",
  updated_at: "2026-11-25T09:30:05.000Z",
  expires_at: "2026-11-25T10:30:00.000Z",
};

type Json = Record<string, unknown>;
const methods = ["get", "post", "put", "patch", "delete"] as const;

/**
 * What trpc-to-openapi cannot know, added to the generated document from each procedure's declared
 * facts (operation-meta.ts): its credential, 201 or 202 answers, a file answer's media type, the error
 * envelope with an example per error code, and a DELETE's JSON body (never secrets in the query string).
 */
export function describeOperations(document: OpenAPIObject, router: AnyRouter): OpenAPIObject {
  const metaByOperation = new Map<string, OperationMeta>();
  const bodyRulesByOperation = new Map<string, Json>();
  const procedures = router._def.procedures as Record<string, { _def?: { inputs?: unknown[] } }>;
  for (const [name, meta] of operationMetas(router)) {
    if (!meta.openapi) continue;
    const key = `${meta.openapi.method.toUpperCase()} ${meta.openapi.path}`;
    metaByOperation.set(key, meta);
    const rules = bodyRulesOf(procedures[name]?._def?.inputs?.[0]);
    if (rules) bodyRulesByOperation.set(key, rules);
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
      // A route outside the router (no meta) keeps the security it was documented with.
      if (meta) operation.security = securityOf[meta.credential ?? "none"];
      if (meta?.successStatus === 201) answerCreated(operation);
      if (meta?.acceptedDescription) answerAcceptedToo(operation, meta.acceptedDescription);
      if (meta?.answers) answerFile(operation, meta.answers);
      if (meta?.redirects) answerRedirect(operation, meta.redirects);
      if (method === "delete") moveQueryToBody(operation);
      addBodyRules(operation, bodyRulesByOperation.get(`${method.toUpperCase()} ${path}`));
      addRequestExamples(operation);
      addExamples(operation, components.schemas);
      describeErrors(operation, errorsOf(meta, operation, method));
      if (meta?.stepUp) markStepUp(operation, meta.stepUp);
      if (meta?.credential === "bearer") markGuests(operation, meta.guestAllowed === true);
      if (meta?.captcha) markCaptcha(operation, meta.captcha);
      if (meta?.deprecated) markDeprecated(operation, meta.deprecated);
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
        // Listed, so generated clients get the union of codes (new codes may be added within v1: docs/api-versioning.md).
        code: { type: "string", enum: Object.keys(errorStatus), description: "The error code (docs/errors.md), e.g. INVALID_CREDENTIALS." },
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

/**
 * The rules an input object declares about its fields together (`.meta({ anyOf: [...] })`: stkpush's
 * "amount or intent_id"). trpc-to-openapi keeps only an input's title, description and examples.
 */
function bodyRulesOf(input: unknown): Json | undefined {
  const meta = (input as { meta?: () => Json | undefined } | undefined)?.meta?.();
  return Array.isArray(meta?.anyOf) ? { anyOf: meta.anyOf } : undefined;
}

function addBodyRules(operation: Json, rules: Json | undefined): void {
  const schema = (operation.requestBody as { content?: Record<string, { schema?: Json }> } | undefined)?.content?.["application/json"]?.schema;
  if (schema && rules) Object.assign(schema, rules);
}

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

/** An operation that answers a file (`answers`): its success is that media type, not the JSON envelope. */
function answerFile(operation: Json, file: FileAnswer): void {
  const responses = (operation.responses ?? {}) as Record<string, Json>;
  const success = responses["200"];
  if (!success) return;
  success.content = { [file.mediaType]: { schema: { type: "string" }, example: file.example } };
}

/** An operation that sends the browser elsewhere (`redirects`): its success is a 302 with a Location, no body. */
function answerRedirect(operation: Json, redirect: { description: string; example: string }): void {
  const responses = (operation.responses ?? {}) as Record<string, Json>;
  delete responses["200"];
  const location = { description: "Where the browser goes next", schema: { type: "string", format: "uri" }, example: redirect.example };
  responses["302"] = { description: redirect.description, headers: { Location: location } };
}

/**
 * The errors an operation can answer, by status: the codes its declared facts imply (credential, tenant
 * header, input, `ipLimited`) and the ones its procedure declares in `openapi.errorResponses`, whose
 * text describes the status when there is one.
 */
function errorsOf(meta: OperationMeta | undefined, operation: Json, method: (typeof methods)[number]): Map<string, { description: string; codes: ErrorCode[] }> {
  const implied = new Map<string, ErrorCode[]>();
  const imply = (status: number, ...codes: ErrorCode[]) => implied.set(String(status), [...(implied.get(String(status)) ?? []), ...codes]);
  const parameters = (operation.parameters ?? []) as Json[];
  // Before any operation runs: a URL that is not well-formed, a body that is not JSON (every method but GET
  // reads one when sent, even where the operation takes none), a URL or headers over Node's limit.
  imply(400, "MALFORMED_REQUEST");
  if (method !== "get") imply(413, "PAYLOAD_TOO_LARGE");
  imply(431, "MALFORMED_REQUEST");
  if (parameters.some((p) => p.in === "header" && String(p.name).toLowerCase() === "x-tenant-id" && p.required)) {
    imply(400, "TENANT_REQUIRED");
    imply(404, "TENANT_NOT_FOUND");
  }
  const credential = meta?.credential ?? "none";
  if (credential !== "none") imply(401, "AUTH_REQUIRED", "INVALID_TOKEN");
  // A customer's token where a key is expected, or the other way round.
  if (credential === "bearer" || credential === "apiKey" || credential === "apiKeyOrAdmin") imply(403, "FORBIDDEN");
  // The admin API answers as if absent while ADMIN_API_KEY is not set.
  if (credential === "adminKey") imply(404, "NOT_FOUND");
  if (operation.requestBody || parameters.some((p) => p.in === "path" || p.in === "query")) imply(422, "VALIDATION_ERROR");
  if (meta?.ipLimited) imply(429, "RATE_LIMITED");
  if (meta?.stepUp) imply(403, "STEP_UP_REQUIRED");
  if (meta?.captcha) {
    imply(403, "CAPTCHA_REQUIRED");
    imply(503, "CAPTCHA_UNAVAILABLE");
  }
  imply(500, "INTERNAL_ERROR");
  // Every operation reads the database: while it is away, 503 with Retry-After (docs/operations.md#database-outages).
  imply(503, "SERVICE_UNAVAILABLE");

  // A route outside the router declares its own beside the implied ones, by their descriptions.
  const declaredByRoute = meta
    ? Object.entries(meta.openapi?.errorResponses ?? {})
    : Object.entries((operation.responses ?? {}) as Record<string, Json>)
        .filter(([status]) => Number(status) >= 400)
        .map(([status, response]) => [status, response.description] as const);
  const declared = declaredByRoute.map(([status, text]) => [String(status), String(text)] as const);
  const errors = new Map<string, { description: string; codes: ErrorCode[] }>();
  for (const status of new Set([...implied.keys(), ...declared.map(([status]) => status)])) {
    const text = declared.find(([s]) => s === status)?.[1];
    const codes = [...new Set([...codesIn(text ?? ""), ...(implied.get(status) ?? [])])];
    const unmentioned = codes.filter((code) => !text?.includes(code));
    const description = [text, unmentioned.join(" or ")].filter(Boolean).join("; also ");
    errors.set(status, { description, codes });
  }
  return errors;
}

/** The API's error codes a description names (other capitalised words, such as setting names, are not codes). */
function codesIn(text: string): ErrorCode[] {
  const words: string[] = text.match(/\b[A-Z][A-Z_]{3,}\b/g) ?? [];
  return words.filter((word): word is ErrorCode => Object.hasOwn(errorStatus, word));
}

/** Error responses: the envelope, with one example per code; the generator's own error answers are replaced. */
function describeErrors(operation: Json, errors: Map<string, { description: string; codes: ErrorCode[] }>): void {
  const responses = (operation.responses ?? {}) as Record<string, Json>;
  for (const status of Object.keys(responses)) if (Number(status) >= 400) delete responses[status];
  const exampleFor = (code: string) => ({
    success: false,
    message: "A sentence for people.",
    error: code === "VALIDATION_ERROR" ? { code, details: [{ path: "email", message: "Invalid email address" }] } : { code },
  });
  for (const [status, { description, codes }] of [...errors].sort(([a], [b]) => Number(a) - Number(b))) {
    responses[status] = {
      description,
      content: {
        "application/json": {
          schema: { $ref: "#/components/schemas/ErrorEnvelope" },
          examples: Object.fromEntries(codes.map((code) => [code, { value: exampleFor(code) }])),
        },
      },
    };
  }
  operation.responses = responses;
}

/**
 * A sensitive operation (`stepUp`, docs/step-up.md): its description says when it needs a fresh
 * session and which body proof stands in for one, and `x-step-up` says the same for tools:
 * `{ fresh_session: "always" | "conditional", when?, body_proof: null | { password, without_password, with_two_factor } }`.
 */
function markStepUp(operation: Json, stepUp: StepUp): void {
  const when = typeof stepUp === "object" && "when" in stepUp ? stepUp.when.description : undefined;
  const bodyProof = typeof stepUp === "object" && "orBodyProof" in stepUp ? { password: stepUp.orBodyProof, without_password: "sms_code", with_two_factor: "code" } : null;
  operation["x-step-up"] = { fresh_session: when ? "conditional" : "always", ...(when ? { when } : {}), body_proof: bodyProof };
  const notice = [
    `Needs a fresh session${when ? ` when ${when}` : ""}: on a session past its fresh_until it answers 403 STEP_UP_REQUIRED`,
    bodyProof
      ? `, unless the body carries \`${bodyProof.password}\` (\`sms_code\` for an account without a password) and, while two-factor is on, \`code\``
      : "",
    ". Sign-in and POST /api/v1/auth/reauthenticate make a session fresh for STEP_UP_WINDOW_SECONDS (docs/step-up.md).",
  ].join("");
  operation.description = [operation.description, notice].filter(Boolean).join("\n\n");
}

/**
 * Who of a customer's tokens may call it (docs/sign-in.md#guest-checkout): `x-guest: "allowed"` where a
 * guest's token (role "guest") may, `"forbidden"` where it answers 403 FORBIDDEN.
 */
function markGuests(operation: Json, allowed: boolean): void {
  operation["x-guest"] = allowed ? "allowed" : "forbidden";
  if (allowed) operation.description = [operation.description, 'A guest\'s access token (role "guest", POST /api/v1/auth/guest) may call it.'].filter(Boolean).join("\n\n");
}

/**
 * A flow a shop may put behind a CAPTCHA (`captcha`, docs/sign-in.md#captcha): the `X-Captcha-Token`
 * header, `x-captcha: { flow }` for tools, and when it is needed.
 */
function markCaptcha(operation: Json, flow: CaptchaFlow): void {
  const parameters = ((operation.parameters ??= []) as Json[]);
  parameters.push({
    name: "X-Captcha-Token",
    in: "header",
    required: false,
    description: `The CAPTCHA widget's token (Turnstile or hCaptcha), checked once: needed where the shop's settings.captcha.${flow} is "always".`,
    schema: { type: "string", maxLength: 2048 },
    example: "0.AbCdEf-widget-token",
  });
  operation["x-captcha"] = { flow, header: "X-Captcha-Token" };
  const notice =
    `Where the shop's settings.captcha.${flow} is "always" (and CAPTCHA_PROVIDER is set), the request carries a CAPTCHA token in X-Captcha-Token: ` +
    "missing, refused or reused, 403 CAPTCHA_REQUIRED; the provider not answering, 503 CAPTCHA_UNAVAILABLE.";
  operation.description = [operation.description, notice].filter(Boolean).join("\n\n");
}

/** A deprecated operation: flagged, its replacement named, its Deprecation and Sunset headers documented. */
function markDeprecated(operation: Json, deprecation: Deprecation): void {
  operation.deprecated = true;
  const notice = `Deprecated since ${deprecation.since}; answers until ${deprecation.sunset}${deprecation.replacement ? `. Use ${deprecation.replacement} instead` : ""} (docs/api-versioning.md).`;
  operation.description = [notice, operation.description].filter(Boolean).join("\n\n");
  const headers = {
    Deprecation: { description: "When the operation was deprecated (RFC 9745), e.g. `@1796083200`.", schema: { type: "string" } },
    Sunset: { description: "The HTTP date after which it may stop answering (RFC 8594).", schema: { type: "string" } },
  };
  for (const response of Object.values((operation.responses ?? {}) as Record<string, Json>)) {
    response.headers = { ...(response.headers as Json | undefined), ...headers };
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

/**
 * An example of every request body, parameter and success answer, made from its schema: a schema's own
 * `examples` first (a zod field's `.meta({ examples })`), then the examples by field name, then a
 * value of the schema's type and format.
 */
function addExamples(operation: Json, schemas: Json): void {
  for (const parameter of (operation.parameters ?? []) as Json[]) {
    if (parameter.example === undefined) parameter.example = exampleOf(parameter.schema as Json | undefined, schemas, String(parameter.name));
  }
  const media = [
    (operation.requestBody as Json | undefined)?.content,
    ...Object.entries((operation.responses ?? {}) as Record<string, Json>).filter(([status]) => Number(status) < 300).map(([, response]) => response.content),
  ];
  for (const content of media) {
    const json = (content as Record<string, Json> | undefined)?.["application/json"];
    if (json && json.example === undefined && json.examples === undefined) json.example = exampleOf(json.schema as Json | undefined, schemas);
  }
}

const formatExamples: Record<string, unknown> = {
  "date-time": "2026-11-25T09:30:00.000Z",
  date: "2026-11-25",
  uuid: "6f1c0e56-3b1a-4c52-9d0e-2f4b8a7c1d90",
  email: "wanjiku@example.com",
  uri: "https://shop.example.co.ke/webhooks/mteja",
};

/** A string's format, or the first of the formats it may take (`anyOf: [{ format: "date" }, { format: "date-time" }]`). */
function formatOf(schema: Json): unknown {
  return schema.format ?? ((schema.anyOf ?? schema.oneOf) as Json[] | undefined)?.find((branch) => branch.format !== undefined)?.format;
}

function exampleOf(schema: Json | undefined, schemas: Json, name?: string, depth = 0): unknown {
  if (!schema || depth > 12) return null;
  if (typeof schema.$ref === "string") return exampleOf(schemas[schema.$ref.replace("#/components/schemas/", "")] as Json | undefined, schemas, name, depth + 1);
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
  if (schema.example !== undefined) return schema.example;
  if (name !== undefined && name in examples) return examples[name];
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  // Branches that are only rules (a control-character pattern, "amount or intent_id") leave the example to the type.
  const branches = ((schema.anyOf ?? schema.oneOf ?? schema.allOf) as Json[] | undefined)?.filter(
    (branch) => branch.type !== undefined || branch.$ref !== undefined || branch.properties !== undefined,
  );
  if (branches?.length) return exampleOf(branches.find((branch) => branch.type !== "null") ?? branches[0], schemas, name, depth + 1);
  const type = Array.isArray(schema.type) ? (schema.type as string[]).find((t) => t !== "null") : (schema.type as string | undefined);
  switch (type) {
    case "object":
      return Object.fromEntries(Object.entries((schema.properties ?? {}) as Record<string, Json>).map(([key, value]) => [key, exampleOf(value, schemas, key, depth + 1)]));
    case "array":
      return [exampleOf(schema.items as Json | undefined, schemas, undefined, depth + 1)];
    case "string":
      return formatExamples[String(formatOf(schema))] ?? (typeof schema.minLength === "number" && schema.minLength > 6 ? "x".repeat(schema.minLength) : "string");
    case "integer":
    case "number":
      return typeof schema.minimum === "number" ? Math.max(schema.minimum, 1) : 1;
    case "boolean":
      return true;
    default:
      return null;
  }
}
