/**
 * What one STK success callback costs in database round trips (docs/performance.md, "Callback
 * ingestion"): every statement the service's pg clients send between the request and its answer,
 * counted. PostgreSQL only: the embedded database is in process and has no round trips to save.
 */
import { describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { skipThisTarget, target } from "./support/database.js";
import { postCallback, stkCallbackBody, uniqueReceipt, type DarajaApp } from "./support/daraja.js";
import { watchStatements } from "./support/statements.js";

it.override({ simOptions: { callbacks: false } });

describe.skipIf(skipThisTarget || target !== "postgres")("STK callback round trips", () => {
  let t: DarajaApp;
  const watch = watchStatements();

  it.beforeAll(async ({ sim, launch }) => {
    t = await launch.momo({ darajaUrl: sim.url });
  });

  /** Pushes a prompt on `app`, then records the statements its success callback sends (the webhook worker's claim, woken by the settlement, runs beside the request and is left out). */
  async function settleOne(app: DarajaApp) {
    const user = await app.customer();
    const pushed = await app.rest.post("/api/momo/stkpush", { phone: "0712345678", amount: 100 }, user.accessToken);
    const ids = pushed.body.data as { checkoutRequestId: string; merchantRequestId: string };
    watch.start();
    const answer = await postCallback(app.callbackUrl("stkpush"), stkCallbackBody(ids, 0, { amount: 100, receipt: uniqueReceipt(), phone: "254712345678" }));
    const seen = watch.stop();
    expect(answer.status).toBe(200);
    expect((await app.deps.db.unscoped("test").payment.findUniqueOrThrow({ where: { checkoutRequestId: ids.checkoutRequestId } })).status).toBe("SUCCESS");
    return seen;
  }

  it("settles a payment in 2 statements, none in a transaction of several: stored, with the payment read and its receipt checked; the stored outcome, while the payment is still as read, with the update, its event and deliveries", async () => {
    const seen = await settleOne(t);
    const statements = seen.map((statement) => statement.text);
    expect(statements, statements.join("\n")).toHaveLength(2);
    expect(statements[0]).toMatch(/WITH stored AS \(\s*INSERT INTO momo_callbacks[\s\S]*FROM payments WHERE checkout_request_id = /);
    expect(statements[0]).not.toMatch(/FOR UPDATE/);
    expect(statements[1]).toMatch(/precondition AS \(\s*UPDATE momo_callbacks[\s\S]*AND EXISTS \(\s*SELECT 1 FROM payments[\s\S]*FOR UPDATE\)/);
    // Statements with parameters go by name, parsed once per connection (docs/performance.md, "Prepared statements").
    const unprepared = seen.filter((statement) => !statement.prepared && statement.text !== "BEGIN" && statement.text !== "COMMIT").map((statement) => statement.text.slice(0, 60));
    expect(unprepared).toEqual([]);
  });

  it("settles a payout in 5 statements: stored; BEGIN, payout lock, the stored outcome with the update, its event and deliveries, COMMIT", async ({ sim, launch }) => {
    const app = await launch.momo({ darajaUrl: sim.url, b2c: { securityCredential: sim.securityCredential } });
    const admin = await app.admin();
    const requested = await app.rest.post("/api/momo/b2c", { phone: "0712345678", amount: 250 }, admin.accessToken);
    expect(requested.status).toBe(200);
    const { originatorConversationId, conversationId } = requested.body.data as { originatorConversationId: string; conversationId: string };
    watch.start();
    const answer = await postCallback(app.callbackUrl("b2c/result"), {
      Result: {
        ResultType: 0,
        ResultCode: 0,
        ResultDesc: "The service request is processed successfully.",
        OriginatorConversationID: originatorConversationId,
        ConversationID: conversationId,
        TransactionID: "SKS1234567",
        ResultParameters: { ResultParameter: [{ Key: "TransactionAmount", Value: 250 }] },
      },
    });
    const statements = watch.stop().map((statement) => statement.text);
    expect(answer.status).toBe(200);
    expect((await app.deps.db.unscoped("test").payout.findUniqueOrThrow({ where: { originatorConversationId } })).status).toBe("SUCCESS");
    expect(statements, statements.join("\n")).toHaveLength(5);
    expect(statements[3]).toMatch(/precondition AS \(\s*UPDATE momo_callbacks[\s\S]*INSERT INTO webhook_events/);
  });

  it("sends every statement as text when DATABASE_PREPARED_STATEMENTS is 0", async ({ sim, launch }) => {
    const seen = await settleOne(await launch.momo({ darajaUrl: sim.url, env: { DATABASE_PREPARED_STATEMENTS: "0" } }));
    expect(seen).toHaveLength(2);
    expect(seen.filter((statement) => statement.prepared)).toEqual([]);
  });
});
