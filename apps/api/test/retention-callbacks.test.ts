/**
 * Retention keeps the only record of money (docs/operations.md#retention): past RETENTION_CALLBACKS_DAYS
 * the pruning job deletes stored callbacks whose money a payment (payout, reversal) row records, and
 * those refused before they were read, but never one that is flagged, unmatched, held with no row, unreadable,
 * or refused for the row it names although its token was real — whatever its age.
 * The callbacks arrive through HTTP; the service's clock is then moved far past the retention.
 */
import { describe, expect } from "vitest";
import { testClock } from "./support/clock.js";
import { skipThisTarget } from "./support/database.js";
import { it } from "./support/fixture.js";
import { postCallback, stkCallbackBody, uniqueReceipt, type DarajaApp } from "./support/daraja.js";
import { SHORTCODE } from "./support/simulator.js";

const day = 86_400;
const keptDays = 10;
const clock = testClock();

it.override({ simOptions: { callbacks: false } });

describe.skipIf(skipThisTarget)("retention of stored callbacks", () => {
  let t: DarajaApp;

  it.beforeAll(async ({ sim, launch }) => {
    t = await launch.momo({ darajaUrl: sim.url, now: clock.now, env: { RETENTION_CALLBACKS_DAYS: String(keptDays), PRUNE_BATCH_SIZE: "2" } });
  });

  const stored = (correlationId: string) => t.deps.db.unscoped("test").darajaCallback.findFirstOrThrow({ where: { correlationId } });
  const stillThere = async (id: string) => (await t.deps.db.unscoped("test").darajaCallback.count({ where: { id } })) === 1;

  function c2bBody(transId: string, account: string, amount: number) {
    return {
      TransactionType: "Pay Bill", TransID: transId, TransTime: "20261125120000", TransAmount: String(amount), BusinessShortCode: SHORTCODE,
      BillRefNumber: account, InvoiceNumber: "", OrgAccountBalance: "", ThirdPartyTransID: "", MSISDN: "2547 ***** 126", FirstName: "",
    };
  }

  it("deletes callbacks a row records and unauthenticated ones, and keeps flagged, unmatched, held and unreadable ones for ever", async () => {
    const customer = await t.customer();
    const push = async (amount: number) => {
      const pushed = await t.rest.post("/api/momo/stkpush", { phone: "0712345678", amount }, customer.accessToken);
      expect(pushed.status, JSON.stringify(pushed.body)).toBe(200);
      return pushed.body.data as { checkoutRequestId: string; merchantRequestId: string };
    };

    // Recorded by its payment: applied, then a repeat of it (duplicate).
    const paid = await push(120);
    const receipt = uniqueReceipt();
    expect((await postCallback(t.callbackUrl("stkpush"), stkCallbackBody(paid, 0, { amount: 120, receipt }))).status).toBe(200);
    expect((await postCallback(t.callbackUrl("stkpush"), stkCallbackBody(paid, 0, { amount: 120, receipt }))).status).toBe(200);
    // Unauthenticated: refused and kept for audit only.
    const rejectedIds = { checkoutRequestId: `ws_CO_rejected${Date.now()}`, merchantRequestId: "r-1" };
    expect((await postCallback(t.callbackUrl("stkpush", "0".repeat(64)), stkCallbackBody(rejectedIds, 0, { amount: 1, receipt: uniqueReceipt() }))).status).toBe(403);
    // Refused after it was read: the secret itself (the old form) for a prompt sent with the shop's own token.
    const refusedOldForm = await push(140);
    expect((await postCallback(t.callbackUrl("stkpush", t.secret, null), stkCallbackBody(refusedOldForm, 0, { amount: 140, receipt: uniqueReceipt() }))).status).toBe(403);
    // A C2B validation moves no money.
    const validated = c2bBody(`TSTV${Date.now().toString(36).toUpperCase().slice(-6)}`, "NOSUCHORDER", 80);
    expect((await postCallback(t.callbackUrl("c2b/validation"), validated)).status).toBe(200);

    // Flagged, naming no payment: a success for a CheckoutRequestID nobody knows, the only record of that money.
    const unknownIds = { checkoutRequestId: `ws_CO_unknown${Date.now()}`, merchantRequestId: "u-1" };
    expect((await postCallback(t.callbackUrl("stkpush"), stkCallbackBody(unknownIds, 0, { amount: 75, receipt: uniqueReceipt(), phone: "254712345678" }))).status).toBe(200);
    // Flagged, naming a payment: a success after the payment was cancelled (the payment says no money came).
    const cancelled = await push(130);
    expect((await postCallback(t.callbackUrl("stkpush"), stkCallbackBody(cancelled, 1032))).status).toBe(200);
    expect((await postCallback(t.callbackUrl("stkpush"), stkCallbackBody(cancelled, 0, { amount: 130, receipt: uniqueReceipt() }))).status).toBe(200);
    // Unmatched: C2B money no intent took.
    const unmatchedTransId = `TSTU${Date.now().toString(36).toUpperCase().slice(-6)}`;
    expect((await postCallback(t.callbackUrl("c2b/confirmation"), c2bBody(unmatchedTransId, "WHO-KNOWS", 90))).status).toBe(200);
    // Unreadable, from someone holding the token: perhaps Daraja's, in a shape we do not know.
    expect((await postCallback(t.callbackUrl("b2c/result"), undefined, '{"Result": "paid?"}')).status).toBe(400);
    // Held: a callback kept while a prompt is in flight (a push whose instance stopped before Daraja answered).
    await t.deps.db.unscoped("test").payment.create({
      data: { tenantId: "default", userId: customer.id, phone: "254712345678", amount: 44, reference: "X", description: "Payment", createdAt: clock.now(), updatedAt: clock.now() },
    });
    const heldIds = { checkoutRequestId: `ws_CO_held${Date.now()}`, merchantRequestId: "h-1" };
    expect((await postCallback(t.callbackUrl("stkpush"), stkCallbackBody(heldIds, 0, { amount: 44, receipt: uniqueReceipt() }))).status).toBe(200);

    const deletable = [
      ...(await t.deps.db.unscoped("test").darajaCallback.findMany({ where: { correlationId: paid.checkoutRequestId } })).map((c) => c.id),
      (await t.deps.db.unscoped("test").darajaCallback.findFirstOrThrow({ where: { correlationId: cancelled.checkoutRequestId, outcome: "applied" } })).id,
      (await stored(validated.TransID)).id,
    ];
    expect(deletable).toHaveLength(4);
    const rejected = await t.deps.db.unscoped("test").darajaCallback.findFirstOrThrow({ where: { outcome: "rejected", correlationId: null } });
    const kept = {
      flaggedWithoutPayment: await stored(unknownIds.checkoutRequestId),
      flaggedWithPayment: (await t.deps.db.unscoped("test").darajaCallback.findMany({ where: { correlationId: cancelled.checkoutRequestId, outcome: "flagged" } }))[0]!,
      unmatched: await stored(unmatchedTransId),
      held: await stored(heldIds.checkoutRequestId),
      malformed: await t.deps.db.unscoped("test").darajaCallback.findFirstOrThrow({ where: { outcome: "malformed" } }),
      refusedAfterReading: await stored(refusedOldForm.checkoutRequestId),
    };
    expect(kept.flaggedWithoutPayment).toMatchObject({ outcome: "flagged", paymentId: null });
    expect(kept.flaggedWithPayment).toMatchObject({ outcome: "flagged", paymentId: expect.any(String) });
    expect(kept.unmatched).toMatchObject({ outcome: "applied", paymentId: expect.any(String) });
    expect(kept.held).toMatchObject({ outcome: "accepted", paymentId: null });
    expect(kept.refusedAfterReading).toMatchObject({ outcome: "rejected", flagReason: expect.stringContaining("old form") });

    // Years past the retention.
    clock.advance(3 * 365 * day);
    const report = await t.retention.runOnce();
    expect(report.callbacks).toBe(deletable.length + 1);
    for (const id of [...deletable, rejected.id]) expect(await stillThere(id)).toBe(false);
    for (const [what, callback] of Object.entries(kept)) expect(await stillThere(callback.id), what).toBe(true);
    // Whatever another run finds, they stay.
    expect((await t.retention.runOnce()).callbacks).toBe(0);
  });
});
