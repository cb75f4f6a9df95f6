/**
 * The one seam between the service and a Daraja (src/runtime/daraja-provider.ts): a live use speaks
 * HTTP to the base URL (here the HTTP simulator), a test use is answered in this process by the
 * simulated provider, whose outcomes live in the database, so another instance on the same database
 * answers the query, refuses the repeated payout id, and refuses a second reversal of the same receipt.
 */
import Fastify, { type FastifyInstance } from "fastify";
import { parseReversalResult, parseStkCallback, type DarajaClient } from "@mteja/daraja";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDarajaProviders, type DarajaProviders } from "../src/runtime/daraja-provider.js";
import { createTestDatabase, skipThisTarget, type TestDatabase } from "./support/database.js";
import { listen } from "./support/listen.js";
import {
  CONSUMER_KEY,
  CONSUMER_SECRET,
  PASSKEY,
  SHORTCODE,
  startSimulator,
  type Simulator,
} from "./support/simulator.js";

const silent = { info() {}, warn() {}, error() {}, debug() {} };
const liveAccount = {
  consumerKey: CONSUMER_KEY,
  consumerSecret: CONSUMER_SECRET,
  shortcode: SHORTCODE,
  passkey: PASSKEY,
  transactionType: "CustomerPayBillOnline",
} as const;

describe.skipIf(skipThisTarget)("the Daraja seam", () => {
  let database: TestDatabase;
  let sim: Simulator;
  let receiver: FastifyInstance;
  let receiverUrl: string;
  const callbacks: { path: string; body: unknown }[] = [];
  const instances: DarajaProviders[] = [];

  /** One instance of the service's seam on the shared database. */
  function instance(): DarajaProviders {
    const providers = createDarajaProviders({
      baseUrl: sim.url,
      timeoutMs: 2_000,
      logger: silent,
      db: database.db,
      now: () => new Date(),
    });
    instances.push(providers);
    return providers;
  }
  const testClient = (providers: DarajaProviders): DarajaClient => providers.connect(liveAccount, "test");
  const on = (path: string) => callbacks.filter((callback) => callback.path === path).map((callback) => callback.body);

  beforeAll(async () => {
    database = await createTestDatabase();
    await database.db.migrate();
    sim = await startSimulator();
    receiver = Fastify();
    receiver.post("/*", async (request) => {
      callbacks.push({ path: request.url.split("?")[0]!, body: request.body });
      return { ResultCode: 0, ResultDesc: "Accepted" };
    });
    receiverUrl = await listen(receiver);
  });

  afterAll(async () => {
    for (const providers of instances) providers.close();
    await receiver?.close();
    await sim?.close();
    await database?.drop();
  });

  /** A prompt whose callback comes to `/<test>/stkpush` on the receiver. */
  const prompt = (test: string, amount: number) => ({
    phone: "254708374149",
    amount,
    accountReference: "ORDER-42",
    transactionDesc: "Payment",
    callbackUrl: `${receiverUrl}/${test}/stkpush`,
  });
  const resultUrls = (test: string) => ({
    resultUrl: `${receiverUrl}/${test}/result`,
    queueTimeoutUrl: `${receiverUrl}/${test}/timeout`,
  });
  const resultCodes = (path: string) =>
    on(path)
      .map(parseReversalResult)
      .map((result) => (result.ok ? result.value.resultCode : null));

  it("sends a live use over HTTP to the base URL, and never a test use", async () => {
    const providers = instance();
    await providers.connect(liveAccount, "live").stkPush(prompt("live", 10));
    expect(sim.count("stkpush")).toBe(1);
    await testClient(providers).stkPush(prompt("live", 10));
    expect(sim.count("stkpush")).toBe(1);
    expect(sim.violations).toEqual([]);
  });

  it("keeps test outcomes in the database: another instance answers the query, a repeat, a reversal", async () => {
    const [first, second] = [instance(), instance()];
    const ack = await testClient(first).stkPush(prompt("shared", 40));
    await expect.poll(() => on("/shared/stkpush"), { timeout: 10_000 }).toHaveLength(1);
    const paid = parseStkCallback(on("/shared/stkpush")[0]);
    if (!paid.ok) throw new Error(paid.error);
    const query = testClient(second).stkQuery({ checkoutRequestId: ack.checkoutRequestId });
    await expect(query).resolves.toMatchObject({ status: "SUCCESS" });

    const payout = {
      originatorConversationId: "oc-seam-1",
      commandId: "BusinessPayment",
      amount: 100,
      phone: "254708374149",
      remarks: "Payout",
      ...resultUrls("payout"),
    } as const;
    await expect(testClient(first).b2cPayment(payout)).resolves.toMatchObject({ responseCode: "0" });
    const repeat = testClient(second).b2cPayment(payout);
    await expect(repeat).rejects.toMatchObject({ reason: "duplicate_originator_conversation_id" });

    const reversal = {
      transactionId: paid.value.mpesaReceiptNumber!,
      amount: 40,
      remarks: "Refund",
      ...resultUrls("refund"),
    };
    await testClient(first).reversal(reversal);
    await expect.poll(() => resultCodes("/refund/result"), { timeout: 10_000 }).toEqual(["0"]);
    await testClient(second).reversal(reversal);
    await expect.poll(() => resultCodes("/refund/result"), { timeout: 10_000 }).toEqual(["0", "R000001"]);
  });
});
