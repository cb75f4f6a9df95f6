/**
 * A database outage is answered, not failed (docs/operations.md#database-outages): while
 * PostgreSQL is away every request that needs it answers 503 SERVICE_UNAVAILABLE with Retry-After within
 * the database's time-outs — REST, tRPC, Daraja's and Africa's Talking's callbacks — never 500 and never
 * hanging; once it is back the same process serves them again, its workers go on, and a callback sent
 * again after the outage is applied once. PostgreSQL only: the test cuts a TCP proxy in front of it.
 */
import { createScratchDatabase, openDatabase } from "@mteja/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerUser, RestClient } from "./support/app.js";
import { adminUrl, skipThisTarget, target, type TestDatabase } from "./support/database.js";
import { startDatabaseProxy, type DatabaseProxy } from "./support/database-proxy.js";
import { startDarajaApp, postCallback, stkCallbackBody, uniqueReceipt, type DarajaApp } from "./support/daraja.js";
import { startSimulator, type Simulator } from "./support/simulator.js";
import { createApiKey, shopOf } from "./support/webhook-shop.js";
import { startReceiver, type ReceivedDelivery, type Receiver } from "./support/webhook-receiver.js";
import { waitFor } from "./support/wait.js";

/** The database time-outs of this file (DATABASE_CONNECT_TIMEOUT_MS, DATABASE_STATEMENT_TIMEOUT_MS). */
const connectTimeoutMs = 1_000;
const statementTimeoutMs = 2_000;
/** No request may take longer while the database is away: its time-outs, and room for a busy machine. */
const answeredWithinMs = statementTimeoutMs + connectTimeoutMs + 3_000;
const smsCallbackSecret = "sms-callback-secret-0123456789abcdef0123";

interface Timed {
  status: number;
  body: any;
  retryAfter: string | null;
  ms: number;
}

async function timed(url: string, init: RequestInit): Promise<Timed> {
  const started = Date.now();
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, body, retryAfter: response.headers.get("retry-after"), ms: Date.now() - started };
}

describe.skipIf(target !== "postgres" || skipThisTarget)("a database outage", () => {
  let proxy: DatabaseProxy;
  let database: TestDatabase;
  let sim: Simulator;
  let receiver: Receiver;
  let t: DarajaApp;
  let customer: { email: string; password: string; accessToken: string };
  let ids: { checkoutRequestId: string; merchantRequestId: string };

  beforeAll(async () => {
    const server = new URL(adminUrl);
    proxy = await startDatabaseProxy({ host: server.hostname, port: Number(server.port || 5432) });
    const scratch = await createScratchDatabase(adminUrl, "mteja_test");
    const url = proxy.through(scratch.url);
    const db = await openDatabase({ url, poolMax: 5, connectTimeoutMs, statementTimeoutMs });
    database = {
      db,
      url: scratch.url,
      drop: async () => {
        await db.close();
        await scratch.drop();
      },
    };
    sim = await startSimulator({ callbacks: false });
    receiver = await startReceiver();
    t = await startDarajaApp({ darajaUrl: sim.url, database, env: { SMS_CALLBACK_SECRET: smsCallbackSecret } });
    const shop = shopOf(t, "default", await createApiKey(t.url, "default"));
    await shop.addEndpoint(receiver.url, ["payment.succeeded"]);
    customer = await registerUser(new RestClient(t.url));
    const pushed = await t.rest.post("/api/momo/stkpush", { phone: "0712345678", amount: 100 }, customer.accessToken);
    expect(pushed.status, JSON.stringify(pushed.body)).toBe(200);
    ids = pushed.body.data;
  });

  afterAll(async () => {
    await proxy?.reopen();
    await t?.close();
    await database?.drop();
    await receiver?.close();
    await sim?.close();
    await proxy?.close();
  });

  const receipt = uniqueReceipt();
  const paid = () => stkCallbackBody(ids, 0, { amount: 100, receipt, phone: "254712345678" });
  const signedIn = () => ({ authorization: `Bearer ${customer.accessToken}`, "x-tenant-id": "default" });
  const report = { id: "ATXid_0000", status: "Success", phoneNumber: "+254700000000", networkCode: "63902" };
  const requests = {
    me: () => timed(`${t.url}/api/v1/auth/me`, { headers: signedIn() }),
    login: (language = "en") =>
      timed(`${t.url}/api/v1/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-tenant-id": "default", "accept-language": language },
        body: JSON.stringify({ email: customer.email, password: customer.password }),
      }),
    // tRPC's wire format wraps the envelope in `error`.
    trpc: async () => {
      const answer = await timed(`${t.url}/trpc/profile.me`, { headers: signedIn() });
      return { ...answer, body: answer.body?.error ?? answer.body };
    },
    stkCallback: () =>
      timed(t.callbackUrl("stkpush"), {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(paid()),
      }),
    smsReport: () =>
      timed(`${t.url}/api/sms/callback/delivery?token=${smsCallbackSecret}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(report).toString(),
      }),
  };

  function expectUnavailable(name: string, answer: Timed) {
    expect(answer.status, `${name}: ${JSON.stringify(answer.body)}`).toBe(503);
    expect(answer.body, name).toMatchObject({ success: false, error: { code: "SERVICE_UNAVAILABLE" } });
    expect(Number(answer.retryAfter), `${name}: Retry-After`).toBeGreaterThanOrEqual(1);
    expect(answer.ms, `${name}: answered within the time-outs`).toBeLessThan(answeredWithinMs);
  }

  async function expectServedAgain() {
    await waitFor(async () => (await fetch(`${t.url}/readyz`)).status === 200, { timeoutMs: 15_000 });
    expect((await requests.me()).status).toBe(200);
    expect((await requests.login()).status).toBe(200);
    expect((await requests.trpc()).status).toBe(200);
    expect((await requests.smsReport()).status).toBe(200);
  }

  it("answers 503 SERVICE_UNAVAILABLE with Retry-After while PostgreSQL refuses connections, then serves", async () => {
    expect((await requests.me()).status).toBe(200);
    await proxy.cut("refuse");
    expect((await fetch(`${t.url}/readyz`)).status).toBe(503);
    for (const [name, request] of Object.entries(requests)) expectUnavailable(name, await request());
    // In the answer's language, from the one catalogue.
    const swahili = await requests.login("sw");
    expectUnavailable("login in Swahili", swahili);
    expect(swahili.body.message).not.toBe((await requests.login("en")).body.message);

    await proxy.reopen();
    await expectServedAgain();
    // The callback turned away is sent again: applied once, and again only recorded as a duplicate.
    const accepted = { status: 200, body: { ResultCode: 0, ResultDesc: "Accepted" } };
    expect(await postCallback(t.callbackUrl("stkpush"), paid())).toEqual(accepted);
    expect((await requests.stkCallback()).status).toBe(200);
    const { checkoutRequestId } = ids;
    const payment = await t.deps.db.unscoped("test").payment.findUniqueOrThrow({ where: { checkoutRequestId } });
    expect(payment).toMatchObject({ status: "SUCCESS", mpesaReceipt: receipt });
    const stored = await t.deps.db.unscoped("test").darajaCallback.findMany({ where: { correlationId: checkoutRequestId } });
    expect(stored.map((row) => row.outcome).sort()).toEqual(["applied", "duplicate"]);
    // The webhook worker went on after the outage: the one payment.succeeded event is delivered.
    const ofPayment = (d: ReceivedDelivery) =>
      d.event.type === "payment.succeeded" && d.event.data.payment?.id === payment.id;
    const [delivered] = await receiver.waitFor(ofPayment, 1, 15_000);
    expect(delivered).toBeDefined();
    const events = await t.deps.db.unscoped("test").webhookEvent.findMany({ where: { type: "payment.succeeded" } });
    expect(events.filter((event) => event.body.includes(payment.id))).toHaveLength(1);
  }, 60_000);

  it("answers 503 within its time-outs while PostgreSQL is silent, and heals once it answers again", async () => {
    await proxy.cut("stall");
    const answers = await Promise.all([requests.me(), requests.login(), requests.trpc(), requests.smsReport()]);
    answers.forEach((answer, index) => expectUnavailable(`request ${index}`, answer));

    await proxy.reopen();
    // The connections that went silent are found out by their time-out, one request each at most,
    // and never handed out again: the requests after them are served.
    const seen: number[] = [];
    await waitFor(
      async () => {
        const answer = await requests.me();
        seen.push(answer.status);
        if (answer.status !== 200) expectUnavailable("me after the network returned", answer);
        return answer.status === 200;
      },
      { timeoutMs: 30_000 },
    );
    await expectServedAgain();
    expect(seen.filter((status) => status !== 200).length).toBeLessThanOrEqual(5);
  }, 60_000);
});
