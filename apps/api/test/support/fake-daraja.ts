/**
 * Support for the M-Pesa tests:
 *
 * - `startFakeDaraja()`: a small Daraja written here, independent of apps/daraja-sim. It checks every
 *   field Daraja checks (docs/daraja-wire-format.md §3-§9) and records a violation for each, and lets a test script
 *   the next answer of an endpoint: its body and status, a delay, or a callback sent *before* answering.
 * - `startSimulator()`: the real simulator (apps/daraja-sim) on 127.0.0.1:0.
 * - `startMomoApp()`: the service wired to either, with its callback URLs pointing back at itself
 *   through a relay (the service's own port is only known after it starts).
 * - small helpers: admin users, posting callbacks, polling.
 */
import { securityCredentialFromCertificate } from "@mteja/daraja";
import { createReconciler, type Reconciler } from "@mteja/domain";
import { buildDarajaSimulator, generateSimulatorKeyPair, simulatorDefaults } from "@mteja/daraja-sim";
import { randomBytes } from "node:crypto";
import Fastify, { type FastifyInstance, type FastifyReply } from "fastify";
import { adminKey, registerUser, RestClient, startTestApp, type TestApp, type TestAppOptions } from "./app.js";

export const SHORTCODE = simulatorDefaults.shortcode;
export const PASSKEY = simulatorDefaults.passkey;
export const CONSUMER_KEY = simulatorDefaults.consumerKey;
export const CONSUMER_SECRET = simulatorDefaults.consumerSecret;
export const B2C_SHORTCODE = simulatorDefaults.b2cShortcode;
export const INITIATOR_NAME = simulatorDefaults.initiatorName;
export const INITIATOR_PASSWORD = simulatorDefaults.initiatorPassword;

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  return `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
}

export async function waitFor<T>(probe: () => Promise<T | undefined | null | false>, { timeoutMs = 10_000, intervalMs = 25 } = {}): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error("waitFor: timed out");
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

// ---------------------------------------------------------------------------------------------
// Relay: forwards whatever it receives to the service, verbatim.

export interface Relay {
  url: string;
  target: string | undefined;
  close(): Promise<void>;
}

export async function startRelay(): Promise<Relay> {
  const app = Fastify({ logger: false, forceCloseConnections: true });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string" }, (_request, body, done) => done(null, body));
  const relay: Relay = { url: "", target: undefined, close: () => app.close() };
  app.all("/*", async (request, reply) => {
    if (!relay.target) return reply.code(503).send("relay has no target");
    const headers: Record<string, string> = {};
    const type = request.headers["content-type"];
    if (typeof type === "string") headers["content-type"] = type;
    const response = await fetch(relay.target + request.url, {
      method: request.method,
      headers,
      ...(typeof request.body === "string" ? { body: request.body } : {}),
    });
    return reply.code(response.status).header("content-type", response.headers.get("content-type") ?? "text/plain").send(await response.text());
  });
  relay.url = await listen(app);
  return relay;
}

// ---------------------------------------------------------------------------------------------
// The service, configured for a Daraja at `darajaUrl`.

export const callbackSecret = randomBytes(32).toString("hex");

export interface MomoApp extends TestApp {
  relay: Relay;
  secret: string;
  /** A reconciler on this app's deps, run by hand (the app's own schedule is off: MOMO_RECONCILE_INTERVAL_MS=0). */
  reconciler: Reconciler;
  /** The callback URL of a kind, with or without the token. */
  callbackUrl(path: "stkpush" | "b2c/result" | "b2c/timeout" | "b2c/status", token?: string | null): string;
  rest: RestClient;
  customer(): Promise<{ id: string; accessToken: string; email: string; password: string }>;
  admin(): Promise<{ id: string; accessToken: string }>;
}

/** RATE_LIMIT_RULES of every momo test app, before its own (later rules win). */
const relaxedPhoneLimits = "stk_prompts_per_phone_minute=1000/60,stk_prompts_per_phone_hour=1000/3600";

export interface MomoAppOptions {
  darajaUrl: string;
  env?: Record<string, string>;
  now?: () => Date;
  b2c?: { securityCredential: string };
  /** Passed on to startTestApp. */
  logStream?: TestAppOptions["logStream"];
  metrics?: TestAppOptions["metrics"];
}

export async function startMomoApp(options: MomoAppOptions): Promise<MomoApp> {
  const relay = await startRelay();
  const base = `${relay.url}/api/momo/callback`;
  const env: Record<string, string> = {
    MOMO_BASE_URL: options.darajaUrl,
    MOMO_CONSUMER_KEY: CONSUMER_KEY,
    MOMO_CONSUMER_SECRET: CONSUMER_SECRET,
    MOMO_SHORTCODE: SHORTCODE,
    MOMO_PASSKEY: PASSKEY,
    MOMO_TRANSACTION_TYPE: "CustomerPayBillOnline",
    MOMO_CALLBACK_URL: `${base}/stkpush`,
    MOMO_CALLBACK_SECRET: callbackSecret,
    MOMO_RECONCILE_INTERVAL_MS: "0",
    MOMO_RECONCILE_PACE_MS: "0",
    MOMO_TIMEOUT_MS: "2000",
    ...(options.b2c
      ? {
          MOMO_B2C_SHORTCODE: B2C_SHORTCODE,
          MOMO_INITIATOR_NAME: INITIATOR_NAME,
          MOMO_SECURITY_CREDENTIAL: options.b2c.securityCredential,
          MOMO_B2C_RESULT_URL: `${base}/b2c/result`,
          MOMO_B2C_TIMEOUT_URL: `${base}/b2c/timeout`,
        }
      : {}),
    ...options.env,
    // The payments tests prompt one test phone many times; the tests of the per-phone limit set their own.
    RATE_LIMIT_RULES: [relaxedPhoneLimits, options.env?.RATE_LIMIT_RULES].filter(Boolean).join(","),
  };
  const t = await startTestApp(env, {
    ...(options.now ? { now: options.now } : {}),
    ...(options.logStream ? { logStream: options.logStream } : {}),
    ...(options.metrics ? { metrics: options.metrics } : {}),
  });
  relay.target = t.url;
  const rest = new RestClient(t.url);
  return {
    ...t,
    relay,
    secret: callbackSecret,
    reconciler: createReconciler(() => t.deps, { paceMs: 0 }),
    rest,
    callbackUrl(path, token = callbackSecret) {
      return `${t.url}/api/momo/callback/${path}${token === null ? "" : `?token=${encodeURIComponent(token)}`}`;
    },
    customer: () => registerUser(new RestClient(t.url)),
    async admin() {
      const user = await registerUser(new RestClient(t.url));
      const promoted = await fetch(`${t.url}/api/v1/admin/users/${user.id}`, {
        method: "PATCH",
        headers: { authorization: `Bearer ${adminKey}`, "x-tenant-id": "default", "content-type": "application/json" },
        body: JSON.stringify({ role: "admin" }),
      });
      if (promoted.status !== 200) throw new Error(`promote failed: ${promoted.status}`);
      const login = await new RestClient(t.url).post("/api/v1/auth/login", { email: user.email, password: user.password });
      return { id: user.id, accessToken: login.body.data.access_token as string };
    },
    close: async () => {
      await t.close();
      await relay.close();
    },
  };
}

export async function postCallback(url: string, body: unknown, rawBody?: string): Promise<{ status: number; body: any }> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: rawBody ?? JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, body: parsed };
}

// ---------------------------------------------------------------------------------------------
// The real simulator.

export interface Simulator {
  url: string;
  app: FastifyInstance;
  /** SecurityCredential the simulator accepts (encrypted with its public key). */
  securityCredential: string;
  requests(): Promise<{ requests: { method: string; path: string; status: number; body: any }[]; callbacks: { kind: string; url: string; body: any; status: number | null }[] }>;
  nextOutcome(outcome: string, extra?: { phone?: string; api?: "stk" | "b2c" }): Promise<void>;
  close(): Promise<void>;
}

export async function startSimulator(options: Parameters<typeof buildDarajaSimulator>[0] = {}): Promise<Simulator> {
  const keys = generateSimulatorKeyPair();
  const app = buildDarajaSimulator({ callbackDelayMs: 50, logLimit: 2000, privateKey: keys.privateKeyPem, ...options });
  const url = await listen(app);
  return {
    url,
    app,
    securityCredential: securityCredentialFromCertificate(keys.publicKeyPem, INITIATOR_PASSWORD),
    requests: async () => (await (await fetch(`${url}/sim/requests`)).json()) as any,
    nextOutcome: async (outcome, extra = {}) => {
      const response = await fetch(`${url}/sim/next-outcome`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ outcome, ...extra }) });
      if (response.status !== 200) throw new Error(`next-outcome failed: ${await response.text()}`);
    },
    close: () => app.close(),
  };
}

// ---------------------------------------------------------------------------------------------
// The fake Daraja.

export type FakeEndpoint = "oauth" | "stkpush" | "stkquery" | "b2c" | "transactionstatus";

export interface FakeRequest {
  endpoint: FakeEndpoint;
  body: any;
  headers: Record<string, string | string[] | undefined>;
}

export interface FakeAnswer {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** What a gateway in front of Daraja answers when it gives up: an HTML page, not Daraja's JSON. */
export function gatewayPage(status = 502): FakeAnswer {
  const title = status === 504 ? "504 Gateway Time-out" : status === 503 ? "503 Service Unavailable" : "502 Bad Gateway";
  return { status, headers: { "content-type": "text/html" }, body: `<html><head><title>${title}</title></head><body><center><h1>${title}</h1></center><hr><center>nginx</center></body></html>` };
}

/** Sends a scripted or default answer. */
function send(reply: FastifyReply, result: FakeAnswer) {
  return reply.code(result.status ?? 200).headers(result.headers ?? {}).send(result.body);
}

/** Runs after validation; may wait, send callbacks, and return an answer (or nothing for the default). */
export type FakeScript = (request: FakeRequest, defaults: FakeAnswer) => Promise<FakeAnswer | void> | FakeAnswer | void;

export interface FakeDaraja {
  url: string;
  requests: FakeRequest[];
  /** Field violations seen (Daraja would have answered 400.002.02): every test expects none. */
  violations: string[];
  /** Queues a one-shot script for the next request to `endpoint`. */
  script(endpoint: FakeEndpoint, script: FakeScript): void;
  /** Answers for STK queries by CheckoutRequestID (default: still processing). */
  queryAnswers: Map<string, FakeAnswer>;
  count(endpoint: FakeEndpoint): number;
  close(): Promise<void>;
}

const MSISDN = /^254[17]\d{8}$/;
const BLOCKED = ["m-pesa", "mpesa", "safaricom", "exe", "cmd", "sql", "query"];

function darajaError(status: number, errorCode: string, errorMessage: string): FakeAnswer {
  return { status, body: { requestId: `fake-${randomBytes(4).toString("hex")}`, errorCode, errorMessage } };
}

function validUrl(value: unknown): boolean {
  if (typeof value !== "string") return false;
  try {
    const url = new URL(value);
    return (url.protocol === "http:" || url.protocol === "https:") && !BLOCKED.some((word) => value.toLowerCase().includes(word));
  } catch {
    return false;
  }
}

function wholeNumber(value: unknown, min: number, max: number): boolean {
  const n = typeof value === "string" && /^\d+$/.test(value) ? Number(value) : value;
  return typeof n === "number" && Number.isInteger(n) && n >= min && n <= max;
}

function validTimestamp(value: unknown): boolean {
  if (typeof value !== "string" || !/^\d{14}$/.test(value)) return false;
  const [y, mo, d, h, mi, s] = [value.slice(0, 4), value.slice(4, 6), value.slice(6, 8), value.slice(8, 10), value.slice(10, 12), value.slice(12, 14)].map(Number);
  const date = new Date(Date.UTC(y!, mo! - 1, d!, h!, mi!, s!));
  return date.getUTCMonth() === mo! - 1 && date.getUTCDate() === d! && h! < 24 && mi! < 60 && s! < 60;
}

export async function startFakeDaraja(): Promise<FakeDaraja> {
  const app = Fastify({ logger: false, forceCloseConnections: true });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string" }, (_request, body, done) => done(null, body));
  const tokens = new Set<string>();
  const scripts = new Map<FakeEndpoint, FakeScript[]>();
  let sequence = 0;
  const fake: FakeDaraja = {
    url: "",
    requests: [],
    violations: [],
    queryAnswers: new Map(),
    script(endpoint, script) {
      scripts.set(endpoint, [...(scripts.get(endpoint) ?? []), script]);
    },
    count: (endpoint) => fake.requests.filter((r) => r.endpoint === endpoint).length,
    close: () => app.close(),
  };

  const violation = (endpoint: FakeEndpoint, field: string): FakeAnswer => {
    fake.violations.push(`${endpoint}: ${field}`);
    return darajaError(400, "400.002.02", `Bad Request - Invalid ${field}`);
  };

  async function answer(endpoint: FakeEndpoint, body: any, headers: FakeRequest["headers"], check: () => FakeAnswer | null, defaults: () => FakeAnswer): Promise<FakeAnswer> {
    const request = { endpoint, body, headers };
    fake.requests.push(request);
    if (endpoint !== "oauth") {
      const auth = headers.authorization;
      const token = typeof auth === "string" ? /^Bearer (\S+)$/.exec(auth)?.[1] : undefined;
      if (!token || !tokens.has(token)) return darajaError(404, "404.001.03", "Invalid Access Token");
      if (!String(headers["content-type"] ?? "").startsWith("application/json")) return violation(endpoint, "Content-Type");
    }
    const failure = check();
    if (failure) return failure;
    const fallback = defaults();
    const script = scripts.get(endpoint)?.shift();
    return (script && (await script(request, fallback))) || fallback;
  }

  const parse = (raw: unknown): any => {
    try {
      return JSON.parse(String(raw));
    } catch {
      return undefined;
    }
  };

  app.get("/oauth/v1/generate", async (request, reply) => {
    const result = await answer(
      "oauth",
      request.query,
      request.headers,
      () => {
        const expected = `Basic ${Buffer.from(`${CONSUMER_KEY}:${CONSUMER_SECRET}`).toString("base64")}`;
        if ((request.query as any).grant_type !== "client_credentials") return darajaError(400, "400.008.02", "Invalid grant type passed");
        if (request.headers.authorization !== expected) return { status: 400, body: "" };
        return null;
      },
      () => {
        const token = randomBytes(12).toString("hex");
        tokens.add(token);
        return { status: 200, body: { access_token: token, expires_in: "3599" } };
      },
    );
    return send(reply, result);
  });

  app.post("/mpesa/stkpush/v1/processrequest", async (request, reply) => {
    const body = parse(request.body) ?? {};
    const result = await answer(
      "stkpush",
      body,
      request.headers,
      () => {
        if (String(body.BusinessShortCode) !== SHORTCODE) return violation("stkpush", "BusinessShortCode");
        if (!validTimestamp(body.Timestamp)) return violation("stkpush", "Timestamp");
        if (body.Password !== Buffer.from(`${SHORTCODE}${PASSKEY}${body.Timestamp}`).toString("base64")) {
          return darajaError(500, "500.001.1001", "[MerchantValidate] - Wrong credentials");
        }
        if (body.TransactionType !== "CustomerPayBillOnline") return violation("stkpush", "TransactionType");
        if (!wholeNumber(body.Amount, 1, 250_000)) return violation("stkpush", "Amount");
        if (!MSISDN.test(String(body.PartyA))) return violation("stkpush", "PartyA");
        if (String(body.PartyB) !== SHORTCODE) return violation("stkpush", "PartyB");
        if (!MSISDN.test(String(body.PhoneNumber))) return violation("stkpush", "PhoneNumber");
        if (!validUrl(body.CallBackURL)) return violation("stkpush", "CallBackURL");
        if (typeof body.AccountReference !== "string" || body.AccountReference.length < 1 || body.AccountReference.length > 12) return violation("stkpush", "AccountReference");
        if (body.TransactionDesc !== undefined && (typeof body.TransactionDesc !== "string" || body.TransactionDesc.length > 13)) return violation("stkpush", "TransactionDesc");
        return null;
      },
      () => {
        sequence += 1;
        return {
          status: 200,
          body: {
            MerchantRequestID: `fake-mr-${sequence}-${randomBytes(3).toString("hex")}`,
            CheckoutRequestID: `ws_CO_fake${Date.now()}${sequence}${randomBytes(3).toString("hex")}`,
            ResponseCode: "0",
            ResponseDescription: "Success. Request accepted for processing",
            CustomerMessage: "Success. Request accepted for processing",
          },
        };
      },
    );
    return send(reply, result);
  });

  app.post("/mpesa/stkpushquery/v1/query", async (request, reply) => {
    const body = parse(request.body) ?? {};
    const result = await answer(
      "stkquery",
      body,
      request.headers,
      () => {
        if (String(body.BusinessShortCode) !== SHORTCODE) return violation("stkquery", "BusinessShortCode");
        if (!validTimestamp(body.Timestamp)) return violation("stkquery", "Timestamp");
        if (body.Password !== Buffer.from(`${SHORTCODE}${PASSKEY}${body.Timestamp}`).toString("base64")) {
          return darajaError(500, "500.001.1001", "[MerchantValidate] - Wrong credentials");
        }
        if (typeof body.CheckoutRequestID !== "string" || body.CheckoutRequestID === "") return violation("stkquery", "CheckoutRequestID");
        return null;
      },
      () => fake.queryAnswers.get(body.CheckoutRequestID) ?? darajaError(500, "500.001.1001", "The transaction is being processed"),
    );
    return send(reply, result);
  });

  const b2cHandler = async (request: any, reply: any) => {
    const body = parse(request.body) ?? {};
    const result = await answer(
      "b2c",
      body,
      request.headers,
      () => {
        if (typeof body.OriginatorConversationID !== "string" || body.OriginatorConversationID === "") return violation("b2c", "OriginatorConversationID");
        if (body.InitiatorName !== INITIATOR_NAME) return violation("b2c", "InitiatorName");
        if (typeof body.SecurityCredential !== "string" || !/^[A-Za-z0-9+/]+={0,2}$/.test(body.SecurityCredential)) return violation("b2c", "SecurityCredential");
        if (!["BusinessPayment", "SalaryPayment", "PromotionPayment"].includes(body.CommandID)) return violation("b2c", "CommandID");
        if (!wholeNumber(body.Amount, 10, 250_000)) return violation("b2c", "Amount");
        if (String(body.PartyA) !== B2C_SHORTCODE) return violation("b2c", "PartyA");
        if (!MSISDN.test(String(body.PartyB))) return violation("b2c", "PartyB");
        if (typeof body.Remarks !== "string" || body.Remarks.length < 2 || body.Remarks.length > 100) return violation("b2c", "Remarks");
        if (!validUrl(body.QueueTimeOutURL)) return violation("b2c", "QueueTimeOutURL");
        if (!validUrl(body.ResultURL)) return violation("b2c", "ResultURL");
        const occasion = body.Occassion ?? body.Occasion;
        if (occasion !== undefined && (typeof occasion !== "string" || occasion.length > 100)) return violation("b2c", "Occassion");
        return null;
      },
      () => ({
        status: 200,
        body: {
          ConversationID: `AG_fake_${randomBytes(6).toString("hex")}`,
          OriginatorConversationID: body.OriginatorConversationID,
          ResponseCode: "0",
          ResponseDescription: "Accept the service request successfully.",
        },
      }),
    );
    return send(reply, result);
  };
  app.post("/mpesa/b2c/v3/paymentrequest", b2cHandler);

  app.post("/mpesa/transactionstatus/v1/query", async (request, reply) => {
    const body = parse(request.body) ?? {};
    const result = await answer(
      "transactionstatus",
      body,
      request.headers,
      () => {
        if (body.Initiator !== INITIATOR_NAME) return violation("transactionstatus", "Initiator");
        if (body.CommandID !== "TransactionStatusQuery") return violation("transactionstatus", "CommandID");
        if (!body.TransactionID && !body.OriginatorConversationID) return violation("transactionstatus", "TransactionID");
        if (String(body.PartyA) !== B2C_SHORTCODE) return violation("transactionstatus", "PartyA");
        if (String(body.IdentifierType) !== "4") return violation("transactionstatus", "IdentifierType");
        if (!validUrl(body.ResultURL) || !validUrl(body.QueueTimeOutURL)) return violation("transactionstatus", "ResultURL");
        return null;
      },
      () => ({
        status: 200,
        body: { ConversationID: `AG_ts_${randomBytes(6).toString("hex")}`, OriginatorConversationID: `ts-${randomBytes(6).toString("hex")}`, ResponseCode: "0", ResponseDescription: "Accept the service request successfully." },
      }),
    );
    return send(reply, result);
  });

  fake.url = await listen(app);
  return fake;
}

/** The body Daraja POSTs for a prompt's result (docs/daraja-wire-format.md#stk-callback). */
export function stkCallbackBody(
  ids: { merchantRequestId: string; checkoutRequestId: string },
  resultCode: number,
  metadata?: { amount?: number; receipt?: string; phone?: string },
) {
  const items: { Name: string; Value?: unknown }[] = [];
  if (metadata?.amount !== undefined) items.push({ Name: "Amount", Value: metadata.amount });
  if (metadata?.receipt !== undefined) items.push({ Name: "MpesaReceiptNumber", Value: metadata.receipt });
  items.push({ Name: "Balance" });
  items.push({ Name: "TransactionDate", Value: 20261122101530 });
  if (metadata?.phone !== undefined) items.push({ Name: "PhoneNumber", Value: Number(metadata.phone) });
  return {
    Body: {
      stkCallback: {
        MerchantRequestID: ids.merchantRequestId,
        CheckoutRequestID: ids.checkoutRequestId,
        ResultCode: resultCode,
        ResultDesc: resultCode === 0 ? "The service request is processed successfully." : "Request cancelled by user",
        ...(resultCode === 0 || metadata ? { CallbackMetadata: { Item: items } } : {}),
      },
    },
  };
}

let receiptCounter = 0;
export function uniqueReceipt(): string {
  receiptCounter += 1;
  return `TST${randomBytes(3).toString("hex").toUpperCase()}${receiptCounter}`.slice(0, 10);
}
