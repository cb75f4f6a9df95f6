import Fastify from "fastify";
import type { FastifyInstance } from "fastify";
import { createDarajaClient } from "@mteja/daraja";
import type { DarajaClientConfig } from "@mteja/daraja";
import { buildDarajaSimulator, SANDBOX_PASSKEY, SANDBOX_SHORTCODE, SIM_CONSUMER_KEY, SIM_CONSUMER_SECRET } from "../src/index.js";
import type { DarajaSimulatorOptions } from "../src/index.js";

export interface ReceivedCallback {
  path: string;
  query: Record<string, string>;
  body: unknown;
}

export interface Receiver {
  url: string;
  received: ReceivedCallback[];
  /** Resolves once `count` callbacks have arrived on `path` (fails after timeoutMs). */
  waitFor(path: string, count?: number, timeoutMs?: number): Promise<ReceivedCallback[]>;
  on(path: string): ReceivedCallback[];
  close(): Promise<void>;
}

/** Stands in for the Mteja service's callback endpoints. */
export async function startReceiver(): Promise<Receiver> {
  const app: FastifyInstance = Fastify({ logger: false, forceCloseConnections: true });
  const received: ReceivedCallback[] = [];
  app.post("/*", async (request) => {
    const [path] = request.url.split("?");
    received.push({ path: path ?? request.url, query: request.query as Record<string, string>, body: request.body });
    return { ResultCode: 0, ResultDesc: "Accepted" };
  });
  const url = await app.listen({ host: "127.0.0.1", port: 0 });
  const on = (path: string) => received.filter((callback) => callback.path === path);
  return {
    url,
    received,
    on,
    async waitFor(path, count = 1, timeoutMs = 2_000) {
      const deadline = Date.now() + timeoutMs;
      while (on(path).length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} callback(s) on ${path}, got ${on(path).length}`);
        await sleep(5);
      }
      return on(path);
    },
    close: () => app.close(),
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface RunningSimulator {
  url: string;
  app: FastifyInstance;
  close(): Promise<void>;
}

export async function startSimulator(options: DarajaSimulatorOptions = {}): Promise<RunningSimulator> {
  const app = buildDarajaSimulator({ callbackDelayMs: 20, ...options });
  const url = await app.listen({ host: "127.0.0.1", port: 0 });
  return { url, app, close: () => app.close() };
}

export function simClient(simUrl: string, overrides: Partial<DarajaClientConfig> = {}) {
  return createDarajaClient({
    baseUrl: simUrl,
    consumerKey: SIM_CONSUMER_KEY,
    consumerSecret: SIM_CONSUMER_SECRET,
    shortcode: SANDBOX_SHORTCODE,
    passkey: SANDBOX_PASSKEY,
    transactionType: "CustomerPayBillOnline",
    b2cShortcode: "600992",
    initiatorName: "testapi",
    securityCredential: Buffer.from("x".repeat(256)).toString("base64"),
    timeoutMs: 2_000,
    retryDelaysMs: [],
    ...overrides,
  });
}

/** Raw HTTP, for checking the exact wire answers the typed client hides. */
export async function raw(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  const response = await fetch(url, { method: init.method ?? "POST", headers: init.headers ?? {}, ...(init.body === undefined ? {} : { body: init.body }) });
  const text = await response.text();
  let json: unknown = undefined;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, text, json };
}

export async function rawToken(simUrl: string): Promise<string> {
  const basic = Buffer.from(`${SIM_CONSUMER_KEY}:${SIM_CONSUMER_SECRET}`).toString("base64");
  const answer = await raw(`${simUrl}/oauth/v1/generate?grant_type=client_credentials`, { method: "GET", headers: { Authorization: `Basic ${basic}` } });
  return (answer.json as { access_token: string }).access_token;
}
