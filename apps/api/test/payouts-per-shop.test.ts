/**
 * Payouts per shop (settings.momo.b2c = { enabled, maxAmount, dailyLimit }): off by default for shops
 * other than the default one (403), paid from the shop's own B2C account, bounded per payout and per
 * Nairobi day (422 on amount), also when payouts are requested at once.
 */
import { TRPCClientError } from "@trpc/client";
import { beforeEach, describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { RestClient, trpcClient, type TestApp } from "./support/app.js";
import { skipThisTarget } from "./support/database.js";
import { B2C_SHORTCODE, INITIATOR_NAME, type Simulator } from "./support/simulator.js";
import { adminApi, createShop, OWN_B2C, OWN_STK, PLATFORM, platformEnv, shopAdmin } from "./support/shop-daraja.js";

it.override({ simOptions: { callbacks: false } });

describe.skipIf(skipThisTarget)("payouts per shop", () => {
  let fake: Simulator;
  let t: TestApp;
  // 23:50 in Nairobi (UTC+3): ten minutes before a new Nairobi day.
  let clock = new Date("2026-11-24T20:50:00.000Z");
  it.beforeAll(async ({ sim, launch }) => {
    fake = sim;
    t = await launch.app(platformEnv(sim.url), { now: () => clock });
  });
  beforeEach(() => {
    clock = new Date("2026-11-24T20:50:00.000Z");
  });

  const payout = (tenantId: string, token: string, amount: number, headers: Record<string, string> = {}) =>
    new RestClient(t.url, tenantId).request("POST", "/api/momo/b2c", { body: { phone: "0712345678", amount }, token, headers });
  const sentB2c = (since: number) => fake.received.filter((r) => r.operation === "b2c").slice(since);
  const payoutsOf = (tenantId: string) => t.deps.db.unscoped("test").payout.count({ where: { tenantId } });
  /** A shop with its own STK and B2C accounts and the given payout settings. */
  const shopWithPayouts = async (id: string, b2c: Record<string, unknown>) => {
    await createShop(t, id, { momo: { ...OWN_STK, ...OWN_B2C, b2c } });
    return shopAdmin(t, id);
  };

  it("is off for a shop other than the default one unless switched on: 403 FORBIDDEN, nothing stored or sent", async () => {
    await createShop(t, "duka-off");
    const admin = await shopAdmin(t, "duka-off");
    const before = fake.count("b2c");
    const answer = await payout("duka-off", admin.accessToken, 100);
    expect(answer.status).toBe(403);
    expect(answer.body.error.code).toBe("FORBIDDEN");
    expect(fake.count("b2c")).toBe(before);
    expect(await payoutsOf("duka-off")).toBe(0);

    const trpc = trpcClient(t.url, () => ({ authorization: `Bearer ${admin.accessToken}`, "x-tenant-id": "duka-off" }));
    const error = await trpc.payments.b2c.mutate({ phone: "0712345678", amount: 100 }).catch((e: unknown) => e);
    expect((error as TRPCClientError<any>).shape.error.code).toBe("FORBIDDEN");
    expect((error as TRPCClientError<any>).data.httpStatus).toBe(403);
    expect(await payoutsOf("duka-off")).toBe(0);

    // A shop with its own B2C account but without the switch: still off.
    const own = await shopWithPayouts("duka-own-off", {});
    expect((await payout("duka-own-off", own.accessToken, 100)).status).toBe(403);
  });

  it("cannot be switched on for a shop without its own B2C account (422 naming the switch)", async () => {
    await createShop(t, "duka-no-account");
    const answer = await adminApi(t, "PATCH", "/api/v1/admin/tenants/duka-no-account", { settings: { momo: { b2c: { enabled: true } } } });
    expect(answer.status).toBe(422);
    expect(answer.body.error.details).toEqual([{ path: "settings.momo.b2c.enabled", message: expect.any(String) }]);
  });

  it("pays out from the shop's own B2C account once switched on, never from the platform's", async () => {
    const admin = await shopWithPayouts("duka-pays", { enabled: true });
    const before = fake.count("b2c");
    const answer = await payout("duka-pays", admin.accessToken, 1500);
    expect(answer.status).toBe(200);
    expect(answer.body.data.status).toBe("PENDING");
    const [sent] = sentB2c(before);
    expect(sent!.body).toMatchObject({ PartyA: B2C_SHORTCODE, InitiatorName: INITIATOR_NAME, SecurityCredential: OWN_B2C.securityCredential, Amount: 1500 });
  });

  it("the default shop pays out from the platform's account by default, and not at all once switched off (403)", async () => {
    const admin = await shopAdmin(t, "default");
    const before = fake.count("b2c");
    await payout("default", admin.accessToken, 100);
    expect(sentB2c(before)[0]!.body).toMatchObject({ PartyA: PLATFORM.b2cShortcode, InitiatorName: PLATFORM.initiatorName });

    expect((await adminApi(t, "PATCH", "/api/v1/admin/tenants/default", { settings: { momo: { b2c: { enabled: false } } } })).status).toBe(200);
    const off = await payout("default", admin.accessToken, 100);
    expect(off.status).toBe(403);
    expect(off.body.error.code).toBe("FORBIDDEN");
    expect(fake.count("b2c")).toBe(before + 1);
    expect((await adminApi(t, "PATCH", "/api/v1/admin/tenants/default", { settings: { momo: { b2c: null } } })).status).toBe(200);
  });

  it("refuses a payout over the shop's maxAmount: 422 VALIDATION_ERROR on amount, nothing stored or sent", async () => {
    const admin = await shopWithPayouts("duka-max", { enabled: true, maxAmount: 500 });
    const before = fake.count("b2c");
    const over = await payout("duka-max", admin.accessToken, 501);
    expect(over.status).toBe(422);
    expect(over.body.error.code).toBe("VALIDATION_ERROR");
    expect(over.body.error.details).toEqual([{ path: "amount", message: expect.any(String) }]);
    expect(fake.count("b2c")).toBe(before);
    expect(await payoutsOf("duka-max")).toBe(0);
    const trpc = trpcClient(t.url, () => ({ authorization: `Bearer ${admin.accessToken}`, "x-tenant-id": "duka-max" }));
    const error = await trpc.payments.b2c.mutate({ phone: "0712345678", amount: 501 }).catch((e: unknown) => e);
    expect((error as TRPCClientError<any>).shape.error).toMatchObject({ code: "VALIDATION_ERROR", details: [{ path: "amount" }] });
    expect((await payout("duka-max", admin.accessToken, 500)).status).toBe(200);
  });

  it("counts each Nairobi day's payouts that are not FAILED against dailyLimit (422 on amount past it); a new Nairobi day starts afresh", async () => {
    const admin = await shopWithPayouts("duka-daily", { enabled: true, dailyLimit: 1000 });
    expect((await payout("duka-daily", admin.accessToken, 600)).status).toBe(200);
    // Refused by Daraja: FAILED, so it does not count.
    fake.script("b2c", () => ({ status: 400, body: { requestId: "r-1", errorCode: "400.002.02", errorMessage: "Bad Request - Invalid Remarks" } }));
    expect((await payout("duka-daily", admin.accessToken, 300)).status).toBe(502);

    const over = await payout("duka-daily", admin.accessToken, 401);
    expect(over.status).toBe(422);
    expect(over.body.error.details).toEqual([{ path: "amount", message: expect.stringContaining("1000") }]);
    expect((await payout("duka-daily", admin.accessToken, 400)).status).toBe(200);
    expect((await payout("duka-daily", admin.accessToken, 10)).status).toBe(422);

    clock = new Date("2026-11-24T21:00:00.000Z"); // midnight in Nairobi
    expect((await payout("duka-daily", admin.accessToken, 1000)).status).toBe(200);
    expect((await payout("duka-daily", admin.accessToken, 10)).status).toBe(422);
  });

  it("a retry with the same Idempotency-Key is answered as the first request, even when the limit is used up", async () => {
    const admin = await shopWithPayouts("duka-retry", { enabled: true, dailyLimit: 1000 });
    const first = await payout("duka-retry", admin.accessToken, 1000, { "idempotency-key": "payout-1" });
    expect(first.status).toBe(200);
    const retry = await payout("duka-retry", admin.accessToken, 1000, { "idempotency-key": "payout-1" });
    expect(retry.status).toBe(200);
    expect(retry.body.data.originatorConversationId).toBe(first.body.data.originatorConversationId);
    expect(await payoutsOf("duka-retry")).toBe(1);
  });

  it("holds the daily limit when payouts are requested at once", async () => {
    const admin = await shopWithPayouts("duka-race", { enabled: true, dailyLimit: 1000 });
    const answers = await Promise.all(Array.from({ length: 6 }, () => payout("duka-race", admin.accessToken, 400)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 422, 422, 422, 422]);
    const stored = await t.deps.db.unscoped("test").payout.aggregate({ _sum: { amount: true }, where: { tenantId: "duka-race" } });
    expect(stored._sum.amount).toBe(800);
  });
});
