/**
 * A small Daraja written here, independent of apps/daraja-sim, for the tests not yet moved onto the
 * scripted simulator (simulator.ts). It checks every field Daraja checks (docs/daraja-wire-format.md
 * §3-§9) and records a violation for each, and lets a test script the next answer of an endpoint.
 */
import { randomBytes } from "node:crypto";
import Fastify, { type FastifyReply } from "fastify";
import { listen } from "./listen.js";
import { B2C_SHORTCODE, CONSUMER_KEY, CONSUMER_SECRET, INITIATOR_NAME, PASSKEY, SHORTCODE } from "./simulator.js";


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
