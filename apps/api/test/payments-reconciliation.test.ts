/**
 * The reconciler: payments whose callback never came are settled by STK query after
 * MOMO_RECONCILE_AFTER_SECONDS, with per-payment backoff, a 24-hour give-up, claims that are safe with
 * several reconcilers at once, and pacing. The service clock is driven by hand.
 */
import { createReconciler, darajaFlows } from "@mteja/domain";
import { beforeEach, describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { testClock } from "./support/clock.js";
import { skipThisTarget } from "./support/database.js";
import { postCallback, stkCallbackBody, uniqueReceipt, type DarajaApp } from "./support/daraja.js";
import type { Simulator } from "./support/simulator.js";
import { waitFor } from "./support/wait.js";

describe.skipIf(skipThisTarget)("payment reconciliation", () => {
  let sim: Simulator;
  let t: DarajaApp;
  const clock = testClock();
  let user: { id: string; accessToken: string };
  it.beforeAll(async ({ launch }) => {
    sim = await launch.sim({ callbackDelayMs: 30 });
    t = await launch.momo({ darajaUrl: sim.url, now: clock.now, b2c: { securityCredential: sim.securityCredential }, env: { RATE_LIMITS: "off" } });
  });
  // Access tokens follow the service clock, which these tests move by days: a fresh customer per test.
  beforeEach(async () => {
    user = await t.customer();
  });

  async function push(amount: number): Promise<string> {
    const pushed = await t.rest.post("/api/momo/stkpush", { phone: "0712345678", amount }, user.accessToken);
    expect(pushed.status).toBe(200);
    return pushed.body.data.checkoutRequestId as string;
  }
  const payment = (checkoutRequestId: string) => t.deps.db.unscoped("test").payment.findUniqueOrThrow({ where: { checkoutRequestId } });
  const queriesAtDaraja = async () => (await sim.requests()).requests.filter((r) => r.path === "/mpesa/stkpushquery/v1/query");
  /** Lets the simulator settle its prompts (it answers STK queries from its own clock). */
  const simSettles = () => new Promise((resolve) => setTimeout(resolve, 120));

  it("settles a payment whose callback never came, once it is MOMO_RECONCILE_AFTER_SECONDS old", async () => {
    const id = await push(6);
    await simSettles();
    expect((await t.reconciler.runOnce()).paymentsQueried).toBe(0);
    clock.advance(121);
    const report = await t.reconciler.runOnce();
    expect(report).toMatchObject({ paymentsQueried: 1, paymentsSettled: 1, errors: 0 });
    expect(await payment(id)).toMatchObject({ status: "SUCCESS", resultCode: "0", queryAttempts: 1, nextQueryAt: null });
  });

  it("backs off per payment while Daraja cannot settle it, and gives up after 24 hours (FAILED, reconciliation exhausted)", async () => {
    const id = await push(9); // the simulator answers ResultCode 5555 for ever
    await simSettles();
    clock.advance(121);
    await t.reconciler.runOnce();
    let row = await payment(id);
    expect(row).toMatchObject({ status: "PENDING", queryAttempts: 1 });
    expect(row.nextQueryAt!.getTime() - clock.now().getTime()).toBe(30_000);
    expect(row.lastError).toContain("5555");

    // Not due yet: not asked again.
    const asked = (await queriesAtDaraja()).length;
    await t.reconciler.runOnce();
    expect((await queriesAtDaraja()).length).toBe(asked);

    clock.advance(31);
    await t.reconciler.runOnce();
    row = await payment(id);
    expect(row.queryAttempts).toBe(2);
    expect(row.nextQueryAt!.getTime() - clock.now().getTime()).toBe(60_000);

    clock.advance(24 * 3600);
    const report = await t.reconciler.runOnce();
    expect(report.paymentsExhausted).toBe(1);
    row = await payment(id);
    expect(row).toMatchObject({ status: "FAILED", nextQueryAt: null });
    expect(row.lastError).toMatch(/^reconciliation exhausted.*5555/);
  });

  it("flags a kept callback no payment claimed, and times out a payment that never got its CheckoutRequestID", async () => {
    // A push whose service instance stopped before Daraja answered: PENDING, no CheckoutRequestID.
    const orphan = await t.deps.db.unscoped("test").payment.create({
      data: { tenantId: "default", userId: user.id, phone: "254712345678", amount: 44, reference: "X", description: "Payment", createdAt: clock.now(), updatedAt: clock.now() },
    });
    // While it is in flight, a callback for an unknown CheckoutRequestID is kept, not flagged at once.
    const ids = { checkoutRequestId: `ws_CO_kept${Date.now()}`, merchantRequestId: "kept-1" };
    expect((await postCallback(t.callbackUrl("stkpush"), stkCallbackBody(ids, 0, { amount: 44, receipt: uniqueReceipt() }))).status).toBe(200);
    const kept = await t.deps.db.unscoped("test").darajaCallback.findFirstOrThrow({ where: { correlationId: ids.checkoutRequestId } });
    expect(kept).toMatchObject({ outcome: "accepted", paymentId: null });

    await t.reconciler.runOnce();
    expect((await t.deps.db.unscoped("test").darajaCallback.findUniqueOrThrow({ where: { id: kept.id } })).outcome).toBe("accepted");
    expect((await t.deps.db.unscoped("test").payment.findUniqueOrThrow({ where: { id: orphan.id } })).status).toBe("PENDING");

    // Past the in-flight window the kept callback is flagged; the payment waits for the unknown-prompt window.
    clock.advance(121);
    let report = await t.reconciler.runOnce();
    expect(report).toMatchObject({ heldCallbacksFlagged: 1, paymentsTimedOut: 0 });
    expect(await t.deps.db.unscoped("test").darajaCallback.findUniqueOrThrow({ where: { id: kept.id } })).toMatchObject({ outcome: "flagged", flagReason: expect.stringContaining("unknown CheckoutRequestID") });
    expect((await t.deps.db.unscoped("test").payment.findUniqueOrThrow({ where: { id: orphan.id } })).status).toBe("PENDING");

    clock.advance(180);
    report = await t.reconciler.runOnce();
    expect(report.paymentsTimedOut).toBe(1);
    expect(await t.deps.db.unscoped("test").payment.findUniqueOrThrow({ where: { id: orphan.id } })).toMatchObject({ status: "TIMEOUT", checkoutRequestId: null });
  });

  it("queries each due payment exactly once when several reconcilers run at once", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(await push(6));
    await simSettles();
    clock.advance(121);
    const before = (await queriesAtDaraja()).length;
    const other = createReconciler(darajaFlows, () => t.deps, { paceMs: 0, batchSize: 3 });
    const third = createReconciler(darajaFlows, () => t.deps, { paceMs: 0, batchSize: 3 });
    const reports = await Promise.all([t.reconciler.runOnce(), other.runOnce(), third.runOnce()]);
    const queried = reports.reduce((sum, r) => sum + r.paymentsQueried, 0);
    const asked = (await queriesAtDaraja()).slice(before).map((r) => r.body.CheckoutRequestID as string);
    expect(asked.sort()).toEqual([...ids].sort());
    expect(queried).toBe(6);
    for (const id of ids) expect((await payment(id)).status).toBe("SUCCESS");
  });

  it("paces its Daraja calls", async () => {
    for (let i = 0; i < 4; i++) await push(6);
    await simSettles();
    clock.advance(121);
    const paced = createReconciler(darajaFlows, () => t.deps, { paceMs: 150 });
    const started = Date.now();
    const report = await paced.runOnce();
    expect(report.paymentsQueried).toBe(4);
    expect(Date.now() - started).toBeGreaterThanOrEqual(3 * 150 - 10);
  });

  it("leaves no payment PENDING and no payout unsettled, whatever Daraja did", async () => {
    const admin = await t.admin();
    for (const amount of [100, 2, 3, 4, 5, 6, 7, 9]) await push(amount);
    await t.deps.db.unscoped("test").payment.create({
      data: { tenantId: "default", userId: user.id, phone: "254712345678", amount: 45, reference: "X", description: "Payment", createdAt: clock.now(), updatedAt: clock.now() },
    });
    for (const amount of [100, 11, 12, 13, 14, 15, 16]) {
      const answer = await t.rest.post("/api/momo/b2c", { phone: "0712345678", amount }, admin.accessToken);
      expect(answer.status).toBe(200);
    }
    await simSettles();
    // A day later, with the reconciler running every few minutes meanwhile.
    const open = () =>
      Promise.all([
        t.deps.db.unscoped("test").payment.count({ where: { status: "PENDING" } }),
        t.deps.db.unscoped("test").payout.count({ where: { status: { in: ["PENDING", "UNKNOWN"] } } }),
      ]);
    for (let minutes = 0; minutes < 25 * 60; minutes += 30) {
      clock.advance(30 * 60);
      await t.reconciler.runOnce();
      await simSettles();
      const [payments, payouts] = await open();
      if (payments === 0 && payouts === 0) break;
    }
    await waitFor(async () => {
      const [payments, payouts] = await open();
      return payments === 0 && payouts === 0;
    });
    const byStatus = await t.deps.db.unscoped("test").payment.groupBy({ by: ["status"], _count: true });
    expect(byStatus.map((g) => g.status).sort()).not.toContain("PENDING");
  });
});
