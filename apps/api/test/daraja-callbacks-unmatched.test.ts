/**
 * Callbacks with a shop's real token that settle nothing (flagged, held, refused for the row they name,
 * malformed, C2B kept unmatched) are kept whatever their age (docs/operations.md#retention): a leaked
 * token must not let anyone write rows of any size for ever. Per shop, the first
 * `unmatched_callbacks_stored_per_tenant` a minute are stored whole; beyond it their bodies are cut to
 * 8 KiB, which no Daraja body comes near, so a real money record still keeps every field. The limit is
 * lowered through RATE_LIMIT_RULES.
 */
import { logCapture } from "./support/log-lines.js";
import { describe, expect } from "vitest";
import { adminKey, RestClient } from "./support/app.js";
import { skipThisTarget } from "./support/database.js";
import { it } from "./support/fixture.js";
import { postCallback, stkCallbackBody, uniqueReceipt, type DarajaApp } from "./support/daraja.js";
import { SHORTCODE } from "./support/simulator.js";

it.override({ simOptions: { callbacks: false } });

const SHOP_B = "unmatched-b";
const cut = 8 * 1024;
let counter = 0;
const newId = (prefix: string) => `${prefix}${Date.now().toString(36).toUpperCase().slice(-5)}${(counter += 1)}`.slice(0, 10);

describe.skipIf(skipThisTarget)("callbacks with a real token that settle nothing", () => {
  const logLines: Array<Record<string, any>> = [];
  let t: DarajaApp;
  it.beforeAll(async ({ sim, launch }) => {
    const { stream: logStream } = logCapture(logLines);
    t = await launch.momo({ darajaUrl: sim.url, logStream, env: { LOG_LEVEL: "warn", RATE_LIMIT_RULES: "unmatched_callbacks_stored_per_tenant=3/60" } });
    const created = await new RestClient(t.url, "").request("POST", "/api/v1/admin/tenants", { body: { id: SHOP_B, name: "Shop B" }, headers: { authorization: `Bearer ${adminKey}` } });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
  });

  const stored = (correlationId: string) => t.deps.db.unscoped("test").darajaCallback.findFirstOrThrow({ where: { correlationId } });
  /** An STK result for a CheckoutRequestID nobody sent, padded far past anything Daraja sends. */
  const unknownResult = () => {
    const ids = { checkoutRequestId: `ws_CO_${newId("UNK")}`, merchantRequestId: newId("M") };
    return { ids, body: { ...stkCallbackBody(ids, 0, { amount: 10, receipt: uniqueReceipt(), phone: "254712345678" }), Padding: "x".repeat(20_000) } };
  };
  const limitLines = () => logLines.filter((line) => String(line.msg).includes("unmatched_callbacks_stored_per_tenant"));

  it("stores a shop's first ones whole, then cuts the bodies of the rest to 8 KiB; another shop counts apart; money records keep every field", async () => {
    // Three a minute (here) are stored whole.
    for (let i = 0; i < 3; i++) {
      const { ids, body } = unknownResult();
      expect((await postCallback(t.callbackUrl("stkpush"), body)).status).toBe(200);
      const row = await stored(ids.checkoutRequestId);
      expect(row).toMatchObject({ outcome: "flagged", paymentId: null, tokenTenantId: "default" });
      expect(row.rawBody).toBe(JSON.stringify(body));
    }
    // Beyond: still stored, flagged and answered as before, the body cut.
    const over = unknownResult();
    expect((await postCallback(t.callbackUrl("stkpush"), over.body)).status).toBe(200);
    const overRow = await stored(over.ids.checkoutRequestId);
    expect(overRow).toMatchObject({ outcome: "flagged", paymentId: null });
    expect(overRow.rawBody).toBe(JSON.stringify(over.body).slice(0, cut));
    // A malformed one with the shop's token too.
    const junk = `{"not daraja": "${"y".repeat(20_000)}"`;
    expect((await postCallback(t.callbackUrl("b2c/result"), undefined, junk)).status).toBe(400);
    const malformed = await t.deps.db.unscoped("test").darajaCallback.findFirstOrThrow({ where: { outcome: "malformed", rawBody: { startsWith: `{"not daraja": "yyy` } } });
    expect(malformed.rawBody).toBe(junk.slice(0, cut));

    // Another shop's token has its own count: stored whole.
    const theirs = unknownResult();
    expect((await postCallback(t.callbackUrl("stkpush", undefined, SHOP_B), theirs.body)).status).toBe(200);
    expect((await stored(theirs.ids.checkoutRequestId)).rawBody).toBe(JSON.stringify(theirs.body));

    // A C2B payment nobody claimed, beyond the number: money received, its body whole (far below 8 KiB).
    const transId = newId("TUN");
    const paid = {
      TransactionType: "Pay Bill", TransID: transId, TransTime: "20261128170000", TransAmount: "750.00", BusinessShortCode: SHORTCODE,
      BillRefNumber: "NOSUCHORDER", InvoiceNumber: "", OrgAccountBalance: "", ThirdPartyTransID: "", MSISDN: "254708374149", FirstName: "JOHN",
    };
    expect((await postCallback(t.callbackUrl("c2b/confirmation"), paid)).body).toEqual({ ResultCode: 0, ResultDesc: "Success" });
    const money = await stored(transId);
    expect(JSON.parse(money.rawBody)).toEqual(paid);
    expect(await t.deps.db.unscoped("test").payment.findUniqueOrThrow({ where: { transId } })).toMatchObject({ c2bMatch: "unmatched", amount: 750, reference: "NOSUCHORDER" });

    // A callback that settles its payment is never counted nor cut.
    const user = await t.customer();
    const pushed = await t.rest.post("/api/momo/stkpush", { phone: "0712345678", amount: 100 }, user.accessToken);
    const ids = pushed.body.data as { checkoutRequestId: string; merchantRequestId: string };
    const genuine = { ...stkCallbackBody(ids, 0, { amount: 100, receipt: uniqueReceipt(), phone: "254712345678" }), Padding: "z".repeat(20_000) };
    expect((await postCallback(t.callbackUrl("stkpush"), genuine)).status).toBe(200);
    expect(await stored(ids.checkoutRequestId)).toMatchObject({ outcome: "applied", rawBody: JSON.stringify(genuine) });

    // The operator hears of it once a minute, naming the shop whose token it is.
    expect(limitLines()).toEqual([expect.objectContaining({ level: 40, tenantId: "default" })]);
  });
});
