/**
 * The service wired for M-Pesa against a Daraja at `darajaUrl` (the simulator, see simulator.ts), its
 * callback URLs pointing back at itself through a relay (the service's own port is only known after
 * it starts); and the callbacks a test posts itself.
 */
import { createReconciler, darajaFlows, type Reconciler } from "@mteja/domain";
import { createHmac, randomBytes } from "node:crypto";
import Fastify from "fastify";
import { adminKey, registerUser, RestClient, startTestApp, type TestApp, type TestAppOptions } from "./app.js";
import { listen } from "./listen.js";
import { B2C_SHORTCODE, CONSUMER_KEY, CONSUMER_SECRET, INITIATOR_NAME, PASSKEY, SHORTCODE } from "./simulator.js";

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

// The service, configured for a Daraja at `darajaUrl`.

export const callbackSecret = randomBytes(32).toString("hex");

/**
 * The token a shop's callback URLs carry (docs/mpesa.md#callback-tokens), computed here from the
 * documented rule, not by the service's code: HMAC-SHA256(secret, "momo-callback:" + tenant id), hex.
 */
export function tenantToken(tenantId: string, secret = callbackSecret): string {
  return createHmac("sha256", secret).update(`momo-callback:${tenantId}`).digest("hex");
}

/** A tenant id as a callback URL's `tenant=` names it (hex). */
export const tenantParameter = (tenantId: string): string => Buffer.from(tenantId, "utf8").toString("hex");

export interface DarajaApp extends TestApp {
  relay: Relay;
  secret: string;
  /** A reconciler on this app's deps, run by hand (the app's own schedule is off: MOMO_RECONCILE_INTERVAL_MS=0). */
  reconciler: Reconciler;
  /**
   * The callback URL of a kind as a shop's requests give it to Daraja: `tenant=` and that tenant's token
   * (default: the default tenant's); `token` replaces the token (null: none), `tenantId` null leaves
   * `tenant=` out (an old-form URL: `?token=<MOMO_CALLBACK_SECRET>`).
   */
  callbackUrl(
    path:
      | "stkpush"
      | "b2c/result"
      | "b2c/timeout"
      | "b2c/status"
      | "reversal/result"
      | "reversal/timeout"
      | "reversal/status"
      | "refund/b2c/result"
      | "refund/b2c/timeout"
      | "refund/b2c/status"
      | "c2b/validation"
      | "c2b/confirmation"
      | "balance/result"
      | "balance/timeout"
      | "pull/callback",
    token?: string | null,
    tenantId?: string | null,
  ): string;
  rest: RestClient;
  customer(): Promise<{ id: string; accessToken: string; email: string; password: string }>;
  admin(): Promise<{ id: string; accessToken: string }>;
}

/** RATE_LIMIT_RULES of every momo test app, before its own (later rules win). */
const relaxedPhoneLimits = "stk_prompts_per_phone_minute=1000/60,stk_prompts_per_phone_hour=1000/3600";

export interface DarajaAppOptions {
  darajaUrl: string;
  env?: Record<string, string>;
  now?: () => Date;
  b2c?: { securityCredential: string };
  /** Passed on to startTestApp. */
  logStream?: TestAppOptions["logStream"];
  metrics?: TestAppOptions["metrics"];
  /** Another instance's database: this app is a second instance of the service on it. */
  database?: TestAppOptions["database"];
}

export async function startDarajaApp(options: DarajaAppOptions): Promise<DarajaApp> {
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
    ...(options.database ? { database: options.database } : {}),
  });
  relay.target = t.url;
  const rest = new RestClient(t.url);
  return {
    ...t,
    relay,
    secret: callbackSecret,
    reconciler: createReconciler(darajaFlows, () => t.deps, { paceMs: 0 }),
    rest,
    callbackUrl(path, token, tenantId = "default") {
      const url = new URL(`${t.url}/api/momo/callback/${path}`);
      const presented = token === undefined ? (tenantId === null ? callbackSecret : tenantToken(tenantId)) : token;
      if (presented !== null) url.searchParams.set("token", presented);
      if (tenantId !== null) url.searchParams.set("tenant", tenantParameter(tenantId));
      return url.toString();
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
