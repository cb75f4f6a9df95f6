import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SIM_CONSUMER_KEY, SIM_CONSUMER_SECRET, simulatorSettingsFromEnv } from "../src/index.js";
import { raw, rawToken, simClient, startReceiver, startSimulator } from "./harness.js";
import type { Receiver, RunningSimulator } from "./harness.js";

let sim: RunningSimulator;
let receiver: Receiver;

beforeEach(async () => {
  receiver = await startReceiver();
  sim = await startSimulator();
});

afterEach(async () => {
  await sim.close();
  await receiver.close();
});

const push = () => ({ phone: "254708374149", amount: 10, accountReference: "ref", transactionDesc: "desc", callbackUrl: `${receiver.url}/cb` });
const basic = (key: string, secret: string) => `Basic ${Buffer.from(`${key}:${secret}`).toString("base64")}`;

describe("OAuth", () => {
  it("issues a token with expires_in as the string \"3599\"", async () => {
    const answer = await raw(`${sim.url}/oauth/v1/generate?grant_type=client_credentials`, { method: "GET", headers: { Authorization: basic(SIM_CONSUMER_KEY, SIM_CONSUMER_SECRET) } });
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ access_token: expect.stringMatching(/^[A-Za-z0-9]{28}$/), expires_in: "3599" });
  });

  it("refuses wrong credentials with a bare 400 and a wrong grant type with 400.008.02", async () => {
    const wrong = await raw(`${sim.url}/oauth/v1/generate?grant_type=client_credentials`, { method: "GET", headers: { Authorization: basic(SIM_CONSUMER_KEY, "nope") } });
    expect(wrong).toMatchObject({ status: 400, text: "" });
    const grant = await raw(`${sim.url}/oauth/v1/generate?grant_type=password`, { method: "GET", headers: { Authorization: basic(SIM_CONSUMER_KEY, SIM_CONSUMER_SECRET) } });
    expect(grant).toMatchObject({ status: 400, json: { errorCode: "400.008.02" } });
    await expect(simClient(sim.url, { consumerSecret: "nope" }).stkPush(push())).rejects.toMatchObject({ reason: "invalid_client_credentials" });
  });

  it("invalidates the previous token when a new one is issued; the client recovers with one refresh", async () => {
    const daraja = simClient(sim.url);
    await daraja.stkPush(push());
    const old = (await raw(`${sim.url}/sim/requests`, { method: "GET" })).json as { requests: unknown[] };
    expect(old.requests).toHaveLength(2);

    const first = await rawToken(sim.url);
    await rawToken(sim.url); // another process asks for a token
    const stale = await raw(`${sim.url}/mpesa/stkpush/v1/processrequest`, { headers: { Authorization: `Bearer ${first}`, "Content-Type": "application/json" }, body: "{}" });
    expect(stale.status).toBe(404);
    expect(stale.json).toEqual({ requestId: expect.any(String), errorCode: "404.001.03", errorMessage: "Invalid Access Token" });

    await expect(daraja.stkPush(push())).resolves.toMatchObject({ responseCode: "0" });
    const log = (await raw(`${sim.url}/sim/requests`, { method: "GET" })).json as { requests: { path: string; status: number }[] };
    expect(log.requests.slice(-3).map((r) => `${r.path} ${r.status}`)).toEqual([
      "/mpesa/stkpush/v1/processrequest 404",
      "/oauth/v1/generate 200",
      "/mpesa/stkpush/v1/processrequest 200",
    ]);
  });

  it("keeps earlier tokens valid when strictTokens is off", async () => {
    await sim.close();
    sim = await startSimulator({ strictTokens: false });
    const first = await rawToken(sim.url);
    await rawToken(sim.url);
    const answer = await raw(`${sim.url}/mpesa/stkpush/v1/processrequest`, { headers: { Authorization: `Bearer ${first}`, "Content-Type": "application/json" }, body: "{}" });
    expect(answer.json).toMatchObject({ errorMessage: "Bad Request - Invalid BusinessShortCode" });
  });

  it("expires tokens by the simulator's clock", async () => {
    await sim.close();
    let now = new Date("2025-03-01T10:00:00Z");
    sim = await startSimulator({ now: () => now });
    const token = await rawToken(sim.url);
    now = new Date(now.getTime() + 3_600_000);
    const answer = await raw(`${sim.url}/mpesa/stkpush/v1/processrequest`, { headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" }, body: "{}" });
    expect(answer).toMatchObject({ status: 404, json: { errorCode: "404.001.03" } });
  });
});

describe("control endpoints", () => {
  it("lists requests and callbacks, and forgets them on reset", async () => {
    await simClient(sim.url).stkPush(push());
    await receiver.waitFor("/cb");
    await expect.poll(async () => ((await raw(`${sim.url}/sim/requests`, { method: "GET" })).json as { callbacks: unknown[] }).callbacks.length).toBe(1);
    const log = (await raw(`${sim.url}/sim/requests`, { method: "GET" })).json as { callbacks: { kind: string; url: string; status: number }[] };
    expect(log.callbacks[0]).toMatchObject({ kind: "stk", url: `${receiver.url}/cb`, status: 200 });

    expect((await raw(`${sim.url}/sim/reset`)).status).toBe(200);
    expect((await raw(`${sim.url}/sim/requests`, { method: "GET" })).json).toEqual({ requests: [], callbacks: [], queuedOutcomes: [] });
  });

  it("logs an undeliverable callback and does not retry it", async () => {
    await receiver.close();
    await simClient(sim.url).stkPush(push());
    await expect
      .poll(async () => ((await raw(`${sim.url}/sim/requests`, { method: "GET" })).json as { callbacks: { error: string | null }[] }).callbacks)
      .toEqual([expect.objectContaining({ status: null, error: expect.any(String) })]);
    receiver = await startReceiver();
  });
});

describe("simulatorSettingsFromEnv", () => {
  it("defaults to the sandbox values and port 4010", () => {
    const settings = simulatorSettingsFromEnv({});
    expect(settings).toMatchObject({ port: 4010, host: "127.0.0.1", privateKeyPath: null });
    expect(settings.options).toMatchObject({ shortcode: "174379", consumerKey: "mteja-sim-key", callbackDelayMs: 1500, strictTokens: true, queryPendingMode: "classic" });
  });

  it("reads overrides and names the setting of a bad value", () => {
    expect(simulatorSettingsFromEnv({ SIM_PORT: "5000", SIM_CALLBACK_DELAY_MS: "0", SIM_QUERY_PENDING_MODE: "4999", SIM_STRICT_TOKENS: "false" })).toMatchObject({
      port: 5000,
      options: { callbackDelayMs: 0, queryPendingMode: "4999", strictTokens: false },
    });
    expect(() => simulatorSettingsFromEnv({ SIM_PORT: "http" })).toThrow(/SIM_PORT/);
    expect(() => simulatorSettingsFromEnv({ SIM_QUERY_PENDING_MODE: "sometimes" })).toThrow(/SIM_QUERY_PENDING_MODE/);
    expect(() => simulatorSettingsFromEnv({ SIM_STRICT_TOKENS: "maybe" })).toThrow(/SIM_STRICT_TOKENS/);
  });
});
