/**
 * Fuzz: every REST operation listed in /openapi.json (so operations added later are covered too) gets
 * generated hostile requests — bodies (deep nesting, non-objects, wrong types, huge numbers, control
 * characters, prototype-pollution keys), headers (authorization, x-tenant-id, content-type,
 * idempotency-key) and query strings, with path parameters replaced by garbage. Whatever comes in:
 * never a 500; a 502/503 only with a PAYMENT_PROVIDER_* code; every 4xx is the error envelope with a
 * code of the domain's list; every status is one the document lists for the operation, and every JSON
 * answer matches the schema the document gives for that status. Some runs carry a valid token (customer, admin, admin API key) so the
 * checks behind authentication run too, and M-Pesa is on against the simulator so payments are made.
 *
 * The same inputs go through /trpc as well (queries as ?input=, mutations as bodies, sometimes batched).
 *
 * Seeded and bounded (fast-check): the same requests on every run, well under a minute per database.
 */
import { errorStatus } from "@mteja/domain";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import fc from "fast-check";
import { describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { adminKey } from "./support/app.js";
import { skipDatabaseAgnostic } from "./support/database.js";
import { callbackSecret, type DarajaApp } from "./support/daraja.js";
import type { Simulator } from "./support/simulator.js";

const seed = 20_261_125;
const runsPerOperation = 30;
const trpcRunsPerOperation = 12;
const knownCodes = new Set(Object.keys(errorStatus));

interface Operation {
  /** The procedure behind it (trpc-to-openapi's operationId is its path with dots as hyphens); a callback has none. */
  procedure: string | undefined;
  method: string;
  path: string;
  pathParams: string[];
  queryParams: string[];
  bodyFields: string[];
  /** The answers the document lists: status → the JSON schema of its body (undefined: not JSON). */
  responses: Map<string, object | undefined>;
}

interface FuzzRequest {
  path: string;
  query: string;
  headers: Record<string, string>;
  body: string | undefined;
}

function operationsOf(document: any): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries<any>(document.paths)) {
    for (const method of ["get", "post", "put", "patch", "delete"]) {
      const operation = item[method];
      if (!operation) continue;
      const parameters: { name: string; in: string }[] = [...(item.parameters ?? []), ...(operation.parameters ?? [])];
      const schema = operation.requestBody?.content?.["application/json"]?.schema;
      operations.push({
        procedure:
          operation.operationId && !path.startsWith("/api/momo/callback/")
            ? String(operation.operationId).replace(/-/g, ".")
            : undefined,
        method: method.toUpperCase(),
        path,
        pathParams: parameters.filter((p) => p.in === "path").map((p) => p.name),
        queryParams: parameters.filter((p) => p.in === "query").map((p) => p.name),
        bodyFields: Object.keys(schema?.properties ?? {}),
        responses: new Map(
          Object.entries<any>(operation.responses ?? {}).map(([status, response]) => [status, response.content?.["application/json"]?.schema]),
        ),
      });
    }
  }
  return operations;
}

// ---------------------------------------------------------------------------------------------
// Generators.

/** encodeURIComponent refuses lone surrogates; a client could not send them in a URL either. */
function encode(text: string): string {
  const wellFormed = Array.from(text, (char) => (char.length === 1 && /[\ud800-\udfff]/.test(char) ? "\ufffd" : char)).join("");
  return encodeURIComponent(wellFormed);
}

const controlCharacter = fc.integer({ min: 0, max: 0x1f }).map((code) => String.fromCharCode(code));
const hostileString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.tuple(fc.string({ maxLength: 10 }), fc.oneof(controlCharacter, fc.constant("\u007f")), fc.string({ maxLength: 10 })).map((parts) => parts.join("")),
  fc.constantFrom("", " ", "\u0000", "null", "undefined", "NaN", "-1", "1e400", "__proto__", "' OR 1=1 --", "<script>", "\ud800", "x".repeat(5000)),
);
const hugeNumber = fc.constantFrom(1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, -0, 0.1, 2 ** 31, -(2 ** 63), 1e-320);
const hostileScalar = fc.oneof(hostileString, fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), hugeNumber, fc.boolean(), fc.constant(null));
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileScalar },
  { weight: 1, arbitrary: fc.array(hostileScalar, { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.dictionary(hostileString, hostileScalar, { maxKeys: 3 }) },
  { weight: 1, arbitrary: fc.constant(JSON.parse('{"__proto__":{"admin":true}}') as unknown) },
);

/** Values that pass a field's checks, so a request gets past validation to the service and Daraja. */
const plausibleByField: Record<string, fc.Arbitrary<unknown>> = {
  name: fc.constantFrom("Wanjiku Kamau", "Otieno"),
  email: fc.integer({ min: 1, max: 1_000_000 }).map((n) => `fuzz-${n}@example.com`),
  password: fc.constant("a password nobody uses"),
  new_password: fc.constant("another password here"),
  current_password: fc.constant("not the current one"),
  phone: fc.constantFrom("0712345678", "+254 712 345 678", "0112345678"),
  amount: fc.integer({ min: 1, max: 1_000 }),
  label: fc.constant("Home"),
  recipient_name: fc.constant("Wanjiku Kamau"),
  street: fc.constant("Moi Avenue 1"),
  county: fc.constantFrom("nairobi", "homa bay"),
  landmark: fc.constant("Blue gate\nturn left"),
  coordinates: fc.constant({ lat: -1.28, lng: 36.82 }),
  is_default: fc.boolean(),
  code: fc.constantFrom("123456", "abcd-efgh-ijkl"),
  otp_token: hostileString,
  token: fc.constant("0".repeat(64)),
  commandId: fc.constantFrom("BusinessPayment", "SalaryPayment"),
  remarks: fc.constant("Payout"),
  role: fc.constantFrom("admin", null),
  avatar_url: fc.constant("https://example.com/a.png"),
};

function fieldValue(field: string): fc.Arbitrary<unknown> {
  const plausible = plausibleByField[field];
  return plausible ? fc.oneof(plausible, hostileValue) : hostileValue;
}

function deep(depth: number, open: string, close: string): string {
  return open.repeat(depth) + close.repeat(depth);
}

/** Daraja's callback shapes with hostile values, so a callback body gets past "not a Daraja callback". */
const darajaCallbackBody = fc.oneof(
  fc
    .record({ MerchantRequestID: hostileScalar, CheckoutRequestID: fc.oneof(fc.constant("ws_CO_1"), hostileScalar), ResultCode: fc.oneof(fc.constantFrom(0, 1032), hostileScalar), ResultDesc: hostileScalar, CallbackMetadata: fc.option(fc.record({ Item: fc.array(fc.record({ Name: fc.constantFrom("Amount", "MpesaReceiptNumber", "PhoneNumber", "TransactionDate"), Value: hostileScalar }), { maxLength: 4 }) }), { nil: undefined }) })
    .map((stkCallback) => ({ Body: { stkCallback } })),
  fc
    .record({ ResultType: hostileScalar, ResultCode: fc.oneof(fc.constantFrom(0, 1), hostileScalar), ResultDesc: hostileScalar, OriginatorConversationID: hostileScalar, ConversationID: hostileScalar, TransactionID: hostileScalar })
    .map((Result) => ({ Result })),
).map((body) => JSON.stringify(body));

function bodyFor(operation: Operation): fc.Arbitrary<string | undefined> {
  if (operation.path.startsWith("/api/momo/callback/")) {
    return fc.oneof(darajaCallbackBody, fc.constantFrom("x\u0000y", '{"Body":"\u0000"}', "\u0000", "[]", "{"), fc.string({ unit: "binary", maxLength: 60 }));
  }
  const fields = operation.bodyFields.length ? operation.bodyFields : ["x"];
  const shaped = fc
    .record(Object.fromEntries(fields.map((field) => [field, fieldValue(field)])), { requiredKeys: [] })
    .chain((record) => fc.dictionary(hostileString, hostileValue, { maxKeys: 2 }).map((extra) => ({ ...extra, ...record })))
    .map((record) => JSON.stringify(record));
  const raw = fc.oneof(
    fc.constantFrom("[]", "null", '"text"', "42", "true", "{", "{]", '{"a":1}x', "\u0000", 'x\u0000y', '{"a":"\u0000"}', '{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{"admin":true}}}', '{"amount":1e400}', '{"amount":-0}'),
    fc.integer({ min: 30, max: 5_000 }).map((depth) => `{"a":${deep(depth, "[", "]")}}`),
    fc.integer({ min: 30, max: 3_000 }).map((depth) => `{"a":${'{"a":'.repeat(depth)}1${"}".repeat(depth)}}`),
    fc.string({ unit: "binary", maxLength: 60 }),
  );
  // Every field plausible but one: the request reaches the service (and Daraja) with one bad value.
  const nearlyValid = fc.constantFrom(...fields).chain((target) =>
    fc
      .record(Object.fromEntries(fields.map((field) => [field, field === target ? hostileValue : (plausibleByField[field] ?? hostileValue)])))
      .map((record) => JSON.stringify(record)),
  );
  const valid = fc.record(Object.fromEntries(fields.filter((field) => plausibleByField[field]).map((field) => [field, plausibleByField[field]!]))).map((record) => JSON.stringify(record));
  return fc.oneof(
    { weight: 4, arbitrary: shaped },
    { weight: 3, arbitrary: nearlyValid },
    { weight: 1, arbitrary: valid },
    { weight: 3, arbitrary: raw },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

// Never empty: `/payments/` with an empty id is the list's path, answered by the list operation.
const pathSegment = fc.oneof(
  fc.uuid(),
  fc.string({ minLength: 1, maxLength: 30 }).map(encode),
  fc.constantFrom("%00", "%01abc", "%ZZ", "..", "%2e%2e", "%2F", "ws_CO_000", "x".repeat(300), "%F0%9F%92%A9", "%C0%AF", "-".repeat(36)),
);

function queryFor(operation: Operation): fc.Arbitrary<string> {
  const names = [...operation.queryParams, "cursor", "limit", "from", "to", "status", "input", "__proto__"];
  // The callbacks' token: the right one half the time, so their bodies are read too.
  const token = operation.queryParams.includes("token") ? fc.option(fc.constant(`token=${encode(callbackSecret)}`), { nil: undefined }) : fc.constant(undefined);
  const value = fc.oneof(
    hostileString.map(encode),
    fc.constantFrom("%00", "%ZZ", "%", "1e400", "0", "-1", "101", "2026-02-31", "9999-12-31T23:59:59Z", "0000-01-01", "-271821-04-20", "LS0t"),
    fc.base64String({ maxLength: 80 }).map(encode),
    fc.constant("q".repeat(20_000)),
  );
  return fc
    .tuple(token, fc.array(fc.tuple(fc.constantFrom(...names), value), { maxLength: 5 }))
    .map(([known, pairs]) => [...(known ? [known] : []), ...pairs.map(([k, v]) => `${k}=${v}`)].join("&"));
}

/** Header values a client can actually send: Latin-1, no control character but tab. */
const headerString = fc.string({ unit: "binary", maxLength: 60 }).map((s) => s.replace(/[\u0000-\u0008\u000a-\u001f\u007f\u0100-\uffff]/g, "?"));

// ---------------------------------------------------------------------------------------------

/** Checks a body against a schema of the document (OpenAPI 3.1 schemas are JSON Schema 2020-12). */
function schemaChecker(document: any): (schema: object, body: unknown) => string | undefined {
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  addFormats.default(ajv);
  ajv.addSchema({ $id: "openapi.json", components: document.components }, "openapi.json");
  const compiled = new Map<object, ReturnType<typeof ajv.compile>>();
  return (schema, body) => {
    let validate = compiled.get(schema);
    if (!validate) {
      validate = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/')));
      compiled.set(schema, validate);
    }
    return validate(body) ? undefined : ajv.errorsText(validate.errors);
  };
}

describe.skipIf(skipDatabaseAgnostic)("fuzz: hostile requests to every REST operation", () => {
  let sim: Simulator;
  let t: DarajaApp;
  let operations: Operation[];
  let bearers: string[];
  let documented: (schema: object, body: unknown) => string | undefined;

  it.beforeAll(async ({ launch }) => {
    sim = await launch.sim();
    t = await launch.momo({ darajaUrl: sim.url, b2c: { securityCredential: sim.securityCredential }, env: { RATE_LIMITS: "off" } });
    const document = await (await fetch(`${t.url}/openapi.json`)).json();
    operations = operationsOf(document);
    documented = schemaChecker(document);
    const [customer, admin] = await Promise.all([t.customer(), t.admin()]);
    bearers = [customer.accessToken, admin.accessToken, adminKey];
  }, 60_000);

  it("reads the operations from /openapi.json", () => {
    expect(operations.length).toBeGreaterThan(20);
    expect(operations.map((operation) => `${operation.method} ${operation.path}`)).toContain("PUT /api/v1/auth/me");
  });

  /** The credential an operation wants: the admin API key, an admin's token, or any user's. */
  function rightBearer(operation: Operation): fc.Arbitrary<string> {
    if (operation.path.startsWith("/api/v1/admin/")) return fc.constant(`Bearer ${adminKey}`);
    if (/^\/api\/momo\/(b2c|payouts)/.test(operation.path)) return fc.constant(`Bearer ${bearers[1]}`);
    return fc.constantFrom(`Bearer ${bearers[0]}`, `Bearer ${bearers[1]}`);
  }

  function requestFor(operation: Operation): fc.Arbitrary<FuzzRequest> {
    return fc.oneof(hostileRequest(operation), wellAddressedRequest(operation));
  }

  /** Right credential, tenant and content type: only the body, query and path are hostile. */
  function wellAddressedRequest(operation: Operation): fc.Arbitrary<FuzzRequest> {
    return fc
      .record({ params: fc.tuple(...operation.pathParams.map(() => pathSegment)), query: queryFor(operation), body: bodyFor(operation), authorization: rightBearer(operation), idempotencyKey: fc.option(fc.uuid(), { nil: undefined }) })
      .map(({ params, query, body, authorization, idempotencyKey }) => {
        const headers: Record<string, string> = { authorization, "x-tenant-id": "default" };
        if (body !== undefined) headers["content-type"] = "application/json";
        if (idempotencyKey !== undefined) headers["idempotency-key"] = idempotencyKey;
        return { path: fillPath(operation, params), query, headers, body: operation.method === "GET" ? undefined : body };
      });
  }

  function fillPath(operation: Operation, params: string[]): string {
    let index = 0;
    return operation.path.replace(/\{[^}]+\}/g, () => params[index++] ?? "x");
  }

  /** Anything goes, headers included. */
  function hostileRequest(operation: Operation): fc.Arbitrary<FuzzRequest> {
    const pathParams = fc.tuple(...operation.pathParams.map(() => pathSegment));
    const authorization = fc.oneof(
      fc.constant(undefined),
      fc.integer({ min: 0, max: 2 }).map((index) => `Bearer ${bearers[index]}`),
      headerString,
      headerString.map((s) => `Bearer ${s}`),
      fc.constantFrom("Bearer", "Bearer  ", "Basic Zm9vOmJhcg==", "Bearer a.b.c", `Bearer ${"x".repeat(4000)}`),
    );
    const tenant = fc.oneof(fc.constant("default"), fc.constant(undefined), headerString, fc.constantFrom("DEFAULT", " default ", "x".repeat(300)));
    const contentType = fc.oneof(
      { weight: 6, arbitrary: fc.constant("application/json") },
      { weight: 1, arbitrary: fc.constantFrom(undefined, "text/plain", "application/json; charset=utf-16", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonx", "*/*") },
    );
    const idempotencyKey = fc.oneof(fc.constant(undefined), headerString, fc.uuid(), fc.constant("k".repeat(300)));
    return fc
      .record({
        params: pathParams,
        query: queryFor(operation),
        body: bodyFor(operation),
        authorization,
        tenant,
        contentType,
        idempotencyKey,
        cookie: fc.oneof(fc.constant(undefined), headerString.map((s) => `refresh_token=${s}`)),
      })
      .map(({ params, query, body, authorization, tenant, contentType, idempotencyKey, cookie }) => {
        const path = fillPath(operation, params);
        const headers: Record<string, string> = {};
        if (authorization !== undefined) headers.authorization = authorization;
        if (tenant !== undefined) headers["x-tenant-id"] = tenant;
        if (contentType !== undefined && body !== undefined) headers["content-type"] = contentType;
        if (idempotencyKey !== undefined) headers["idempotency-key"] = idempotencyKey;
        if (cookie !== undefined) headers.cookie = cookie;
        return { path, query, headers, body: operation.method === "GET" ? undefined : body };
      });
  }

  async function send(operation: Operation, request: FuzzRequest) {
    const url = `${t.url}${request.path}${request.query ? `?${request.query}` : ""}`;
    const response = await fetch(url, { method: operation.method, headers: request.headers, body: request.body });
    const text = await response.text();
    return { status: response.status, text };
  }

  function describeExchange(method: string, request: FuzzRequest, answer: { status: number; text: string }): string {
    return `${method} ${request.path}?${request.query.slice(0, 300)} ${JSON.stringify(request.headers)} ${request.body?.slice(0, 300)} → ${answer.status} ${answer.text.slice(0, 300)}`;
  }

  /** One error envelope (REST's body, or the `error` of a tRPC answer) and the status it came with. */
  function checkEnvelope(envelope: any, status: number, context: string) {
    expect(status, context).not.toBe(500);
    expect(envelope, context).toMatchObject({ success: false, message: expect.any(String), error: { code: expect.any(String) } });
    expect(knownCodes.has(envelope.error.code), context).toBe(true);
    if (status >= 500) {
      expect([502, 503], context).toContain(status);
      expect(envelope.error.code, context).toMatch(/^PAYMENT_PROVIDER_/);
    }
  }

  function checkAnswer(operation: Operation, request: FuzzRequest, answer: { status: number; text: string }) {
    const context = describeExchange(operation.method, request, answer);
    expect(answer.status, context).not.toBe(500);
    checkDocumented(operation, answer, context);
    if (answer.status < 400) return;
    let body: any;
    expect(() => (body = JSON.parse(answer.text)), context).not.toThrow();
    checkEnvelope(body, answer.status, context);
  }

  /** The status is one the document lists for the operation, and a JSON answer matches its schema. */
  function checkDocumented(operation: Operation, answer: { status: number; text: string }, context: string) {
    const listed = [...operation.responses.keys()];
    expect(listed, `undocumented status: ${context}`).toContain(String(answer.status));
    const schema = operation.responses.get(String(answer.status));
    if (!schema) return;
    expect(documented(schema, JSON.parse(answer.text)), `answer breaks its schema: ${context}`).toBeUndefined();
  }

  /** A tRPC answer: one result or error, or a batch of them (each error carries its own HTTP status). */
  function checkTrpcAnswer(method: string, request: FuzzRequest, answer: { status: number; text: string }) {
    const context = describeExchange(method, request, answer);
    expect(answer.status, context).not.toBe(500);
    let body: any;
    expect(() => (body = JSON.parse(answer.text)), context).not.toThrow();
    for (const item of Array.isArray(body) ? body : [body]) {
      if (item.result) continue;
      // Refused before tRPC (Node's parser, Fastify): the plain envelope; otherwise tRPC's error shape.
      if (item.error?.error) checkEnvelope(item.error, item.error.data?.httpStatus ?? answer.status, context);
      else checkEnvelope(item, answer.status, context);
    }
  }

  /** The same hostile inputs through /trpc: queries as ?input=, mutations as a body, sometimes batched. */
  function trpcRequestFor(operation: Operation): fc.Arbitrary<FuzzRequest> {
    return fc
      .record({ request: requestFor(operation), batch: fc.boolean() })
      .map(({ request, batch }) => {
        const headers = { ...request.headers };
        const input = operation.method === "GET" ? undefined : request.body;
        if (batch) {
          const path = `/trpc/${operation.procedure},${operation.procedure}`;
          const body = input === undefined ? undefined : `{"0":${input},"1":${input}}`;
          return { path, query: operation.method === "GET" ? `batch=1&input=${encode(`{"0":${request.body ?? "{}"}}`)}` : "batch=1", headers, body };
        }
        const query = operation.method === "GET" ? (request.body === undefined ? "" : `input=${encode(request.body)}`) : "";
        return { path: `/trpc/${operation.procedure}`, query, headers, body: input };
      });
  }

  it("never answers 500; 502/503 only from the payment provider; every 4xx is the envelope with a known code", async () => {
    for (const operation of operations) {
      await fc.assert(
        fc.asyncProperty(requestFor(operation), async (request) => {
          checkAnswer(operation, request, await send(operation, request));
        }),
        { seed, numRuns: runsPerOperation, endOnFailure: true },
      );
    }
  }, 120_000);

  it("the same over tRPC: never a 500, every error the envelope with a known code", async () => {
    for (const operation of operations.filter((operation) => operation.procedure)) {
      await fc.assert(
        fc.asyncProperty(trpcRequestFor(operation), async (request) => {
          const method = operation.method === "GET" ? "GET" : "POST";
          const url = `${t.url}${request.path}${request.query ? `?${request.query}` : ""}`;
          const response = await fetch(url, { method, headers: request.headers, body: request.body });
          checkTrpcAnswer(method, request, { status: response.status, text: await response.text() });
        }),
        { seed, numRuns: trpcRunsPerOperation, endOnFailure: true },
      );
    }
  }, 120_000);
});
