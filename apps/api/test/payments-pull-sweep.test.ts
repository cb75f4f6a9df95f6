/**
 * The reconciler's Pull sweep on the injected clock (docs/mpesa.md#recovery), with
 * MOMO_PULL_INTERVAL_SECONDS shortened to 60: a registered short code is pulled over its last 48 hours at
 * the next run, then not again until its interval has passed, then over the window since the last one
 * (one interval of overlap); a confirmation lost meanwhile is recovered by that pull. Each due shop is
 * pulled once per run, oldest due first.
 */
import { describe, expect } from "vitest";
import { adminKey, RestClient } from "./support/app.js";
import { testClock } from "./support/clock.js";
import { skipThisTarget } from "./support/database.js";
import { it } from "./support/fixture.js";
import type { DarajaApp } from "./support/daraja.js";
import { SHORTCODE, type Simulator } from "./support/simulator.js";

const INTERVAL = 60;
const clock = testClock();
const EAT_MS = 3 * 3600 * 1000;
const eat = (at: Date) => new Date(at.getTime() + EAT_MS).toISOString().slice(0, 19).replace("T", " ");

it.override({
  simOptions: { now: clock.now },
  darajaOptions: { now: clock.now, env: { RATE_LIMITS: "off", MOMO_PULL_INTERVAL_SECONDS: String(INTERVAL) } },
});

describe.skipIf(skipThisTarget)("Pull sweep", () => {
  let t: DarajaApp;
  let sim: Simulator;
  const admin = (method: string, path: string, body?: unknown) =>
    new RestClient(t.url, "").request(method, path, { ...(body !== undefined ? { body } : {}), headers: { authorization: `Bearer ${adminKey}` } });
  const queries = () => sim.received.filter((request) => request.operation === "pullquery");

  it.beforeAll(async ({ momo, sim: simulator }) => {
    t = momo;
    sim = simulator;
    expect((await admin("POST", "/api/v1/admin/tenants/default/c2b/register", {})).status).toBe(200);
  });

  it("pulls a registered short code at the next run, then every interval over the window since the last pull, recovering a lost confirmation", async () => {
    expect((await t.reconciler.runOnce()).pullsRun).toBe(0);
    const registered = await admin("POST", "/api/v1/admin/tenants/default/pull/register", { nominated_number: "0722000000" });
    expect(registered.status, JSON.stringify(registered.body)).toBe(200);
    expect(registered.body.data.next_pull_at).toBe(clock.now().toISOString());

    const firstAt = clock.now();
    const first = await t.reconciler.runOnce();
    expect(first).toMatchObject({ pullsRun: 1, receiptsRecovered: 0, errors: 0 });
    expect(queries().at(-1)!.body).toMatchObject({ ShortCode: SHORTCODE, StartDate: eat(new Date(firstAt.getTime() - 48 * 3600_000)), OffSetValue: "0" });

    // A paybill payment whose confirmation never arrives.
    clock.advance(5);
    const created = await admin("POST", "/api/v1/admin/tenants/default/api-keys", { name: "Shop" });
    const key = created.body.data.key as string;
    const intent = await new RestClient(t.url, "").request("POST", "/api/v1/payment-intents", { body: { amount: 41, reference: "SWEEP1" }, token: key });
    expect(intent.status, JSON.stringify(intent.body)).toBe(201);
    const paid = await sim.c2bPay({ account: "SWEEP1", amount: 41, validation: false });
    expect(paid.confirmation_lost).toBe(true);

    // Not due yet: nothing is pulled.
    clock.advance(INTERVAL - 10);
    const before = queries().length;
    expect((await t.reconciler.runOnce()).pullsRun).toBe(0);
    expect(queries().length).toBe(before);

    clock.advance(10);
    const secondAt = clock.now();
    const second = await t.reconciler.runOnce();
    expect(second).toMatchObject({ pullsRun: 1, receiptsRecovered: 1, errors: 0 });
    // The window since the last one, one interval of overlap before it.
    expect(queries().at(before)!.body).toMatchObject({ StartDate: eat(new Date(firstAt.getTime() - INTERVAL * 1000)), OffSetValue: "0" });
    const intentNow = await new RestClient(t.url, "").request("GET", `/api/v1/payment-intents/${intent.body.data.id}`, { token: key });
    expect(intentNow.body.data.status).toBe("succeeded");
    const row = await t.deps.db.unscoped("test").pullRegistration.findUniqueOrThrow({ where: { tenantId: "default" } });
    expect(row).toMatchObject({ pulledUntil: secondAt, lastPulledAt: secondAt, lastPullError: null });
    expect(row.nextPullAt.getTime()).toBe(secondAt.getTime() + INTERVAL * 1000);

    // The next pull sees the receipt held and recovers nothing.
    clock.advance(INTERVAL);
    expect(await t.reconciler.runOnce()).toMatchObject({ pullsRun: 1, receiptsRecovered: 0 });
    expect(await t.deps.db.unscoped("test").payment.count({ where: { mpesaReceipt: paid.trans_id } })).toBe(1);
  });

  it("pulls each due shop once per run and notes a failure without stopping the others", async () => {
    // A second shop, registered in the database only, whose short code is not its own (it has none): its pull fails.
    expect((await admin("POST", "/api/v1/admin/tenants", { id: "other-shop", name: "Other" })).status).toBe(200);
    const at = clock.now();
    await t.deps.db.unscoped("test").pullRegistration.create({
      data: { tenantId: "other-shop", shortCode: "600111", nominatedNumber: "254722000001", registeredAt: at, updatedAt: at, nextPullAt: new Date(at.getTime() - 1000) },
    });
    clock.advance(INTERVAL);
    const run = await t.reconciler.runOnce();
    expect(run).toMatchObject({ pullsRun: 1, errors: 1 });
    const other = await t.deps.db.unscoped("test").pullRegistration.findUniqueOrThrow({ where: { tenantId: "other-shop" } });
    expect(other.lastPullError).toMatch(/not configured|no longer/);
    expect(other.nextPullAt.getTime()).toBe(clock.now().getTime() + INTERVAL * 1000);
    expect((await t.reconciler.runOnce()).pullsRun).toBe(0);
  });
});
