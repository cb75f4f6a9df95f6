/**
 * The Daraja of the API tests: the simulator (apps/daraja-sim) on 127.0.0.1:0, scripted in process.
 * A test reads what it received, replaces the next answer of an operation (a gateway's HTML page, a
 * 5xx, an unparseable body, Daraja's refusal), answers late, or does something first (a callback
 * before the answer); `callbacks: false` keeps every prompt and payout open, so only the callbacks
 * the test posts itself arrive.
 */
import { securityCredentialFromCertificate } from "@mteja/daraja";
import {
  buildDarajaSimulator,
  createSimScripts,
  generateSimulatorKeyPair,
  simulatorDefaults,
  type DarajaSimulatorOptions,
  type ReceivedRequest,
  type SimAnswer,
  type SimOperation,
  type SimScript,
} from "@mteja/daraja-sim";
import type { FastifyInstance } from "fastify";
import { listen } from "./listen.js";

export const SHORTCODE = simulatorDefaults.shortcode;
export const PASSKEY = simulatorDefaults.passkey;
export const CONSUMER_KEY = simulatorDefaults.consumerKey;
export const CONSUMER_SECRET = simulatorDefaults.consumerSecret;
export const B2C_SHORTCODE = simulatorDefaults.b2cShortcode;
export const INITIATOR_NAME = simulatorDefaults.initiatorName;
export const INITIATOR_PASSWORD = simulatorDefaults.initiatorPassword;

export type { ReceivedRequest, SimAnswer, SimOperation, SimScript };

export interface Simulator {
  url: string;
  app: FastifyInstance;
  /** SecurityCredential the simulator accepts (encrypted with its public key). */
  securityCredential: string;
  /** GET /sim/requests: the simulator's own log of requests and callbacks. */
  requests(): Promise<{ requests: { method: string; path: string; status: number; body: any }[]; callbacks: { kind: string; url: string; body: any; status: number | null }[] }>;
  nextOutcome(outcome: string, extra?: { phone?: string; api?: "stk" | "b2c" | "reversal" | "balance" }): Promise<void>;
  /** Every request to a Daraja path, in arrival order. */
  received: ReceivedRequest[];
  count(operation: SimOperation): number;
  /** Queues a one-shot script for the next accepted request to `operation`. */
  script(operation: SimOperation, script: SimScript): void;
  /** Standing answers of the STK query, by CheckoutRequestID (otherwise the simulator's). */
  queryAnswers: Map<string, SimAnswer>;
  /**
   * POST /sim/c2b/pay: the customer pays paybill `short_code` (default the simulator's), account
   * `account`, `amount` from the M-Pesa menu; validation then confirmation against the registered URLs.
   */
  c2bPay(payment: C2bPayment): Promise<C2bPayResult>;
  /** POST /sim/qr/scan: the customer scans one of the simulator's QR codes in the M-Pesa app and pays. */
  qrScan(scan: { qr_code: string; phone?: string; validation?: boolean; lose_confirmation?: boolean }): Promise<C2bPayResult & { qr: any }>;
  /** Fields Daraja would have refused (400 it answered by itself): every test expects none. */
  readonly violations: string[];
  close(): Promise<void>;
}

export interface C2bPayment {
  account: string;
  amount: number;
  short_code?: string;
  phone?: string;
  msisdn?: "masked" | "hashed" | "plain";
  validation?: boolean;
  command?: "CustomerPayBillOnline" | "CustomerBuyGoodsOnline";
  repeat_confirmation?: boolean;
  /** The confirmation never reaches the service (visible to Pull only); also the amount 41. */
  lose_confirmation?: boolean;
}

export interface C2bPayResult {
  trans_id: string;
  status: "completed" | "cancelled";
  reason: string;
  validation: { status: number | null; body: any; error: string | null; verdict: string; result_code: string | null } | null;
  confirmation: { status: number | null; body: any; error: string | null } | null;
  confirmation_lost?: boolean;
}

export interface SimulatorOptions extends DarajaSimulatorOptions {
  /** false: prompts and payouts never settle and no callback is sent (the test posts its own). Default true. */
  callbacks?: boolean;
}

/** Long enough never to come during a test. */
const NEVER_MS = 3_600_000;

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const { callbacks = true, ...simulatorOptions } = options;
  const keys = generateSimulatorKeyPair();
  const scripts = createSimScripts();
  const queryAnswers = new Map<string, SimAnswer>();
  scripts.always("stkquery", (request) => queryAnswers.get(request.body?.CheckoutRequestID));
  const app = buildDarajaSimulator({
    callbackDelayMs: 50,
    logLimit: 2000,
    privateKey: keys.privateKeyPem,
    // Several instances of the service may share it (a restart, a second instance): each keeps its token.
    ...(callbacks ? {} : { callbackDelayMs: NEVER_MS, strictTokens: false }),
    ...simulatorOptions,
    scripts,
  });
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
    c2bPay: async (payment) => {
      const response = await fetch(`${url}/sim/c2b/pay`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(payment) });
      if (response.status !== 200) throw new Error(`c2b pay failed: ${await response.text()}`);
      return (await response.json()) as C2bPayResult;
    },
    qrScan: async (scan) => {
      const response = await fetch(`${url}/sim/qr/scan`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(scan) });
      if (response.status !== 200) throw new Error(`qr scan failed: ${await response.text()}`);
      return (await response.json()) as C2bPayResult & { qr: any };
    },
    received: scripts.received,
    count: (operation) => scripts.received.filter((request) => request.operation === operation).length,
    script: (operation, script) => scripts.next(operation, script),
    queryAnswers,
    get violations() {
      return scripts.received.filter((request) => request.status === 400 && !request.scripted).map((request) => `${request.operation}: ${JSON.stringify(request.body)}`);
    },
    close: () => app.close(),
  };
}

/** What a gateway in front of Daraja answers when it gives up: an HTML page, not Daraja's JSON. */
export function gatewayPage(status = 502): SimAnswer {
  const title = status === 504 ? "504 Gateway Time-out" : status === 503 ? "503 Service Unavailable" : "502 Bad Gateway";
  return { status, headers: { "content-type": "text/html" }, body: `<html><head><title>${title}</title></head><body><center><h1>${title}</h1></center><hr><center>nginx</center></body></html>` };
}
