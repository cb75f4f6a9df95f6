/**
 * A shop's M-Pesa settings through the admin API: updates merge (JSON Merge Patch), credentials are
 * all or nothing, secrets are stored encrypted and shown as "set", and a shop with its own short code
 * is always paid into it, never into the platform's.
 */
import { randomBytes } from "node:crypto";
import { describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { RestClient, type TestApp } from "./support/app.js";
import { skipThisTarget } from "./support/database.js";
import { PASSKEY, SHORTCODE, type Simulator } from "./support/simulator.js";
import { adminApi, createShop, OWN_B2C, OWN_STK, PLATFORM, platformEnv, shopCustomer, startShopApp } from "./support/shop-daraja.js";

it.override({ simOptions: { callbacks: false } });

describe.skipIf(skipThisTarget)("per-shop M-Pesa settings", () => {
  let fake: Simulator;
  let t: TestApp;
  const dataKey = randomBytes(32).toString("hex");
  it.beforeAll(async ({ sim, launch }) => {
    fake = sim;
    t = await launch.app(platformEnv(sim.url, dataKey));
  });

  const patch = (id: string, body: unknown) => adminApi(t, "PATCH", `/api/v1/admin/tenants/${id}`, body);
  const storedMomo = async (id: string) => ((await t.deps.db.unscoped("test").tenant.findUniqueOrThrow({ where: { id } })).settings as any).momo;
  /** Pushes a prompt as a customer of the shop; answers what the simulator received. */
  const pushAsCustomerOf = async (tenantId: string) => {
    const customer = await shopCustomer(t, tenantId);
    const before = fake.count("stkpush");
    const answer = await new RestClient(t.url, tenantId).post("/api/momo/stkpush", { phone: "0712345678", amount: 100 }, customer.accessToken);
    const sent = fake.received.filter((r) => r.operation === "stkpush").slice(before);
    return { status: answer.status, sent };
  };
  const passwordFor = (shortcode: string, passkey: string, timestamp: string) => Buffer.from(`${shortcode}${passkey}${timestamp}`).toString("base64");

  it("merges a settings update into the stored settings: changing maxAmount keeps the shop's own credentials, and its customers still pay into its short code", async () => {
    await createShop(t, "duka-merge", { displayName: "Duka", momo: { ...OWN_STK, minAmount: 10 } });
    const updated = await patch("duka-merge", { settings: { momo: { maxAmount: 5000 } } });
    expect(updated.status).toBe(200);
    expect(updated.body.data.tenant.settings).toEqual({
      displayName: "Duka",
      momo: { shortcode: SHORTCODE, consumerKey: OWN_STK.consumerKey, consumerSecret: "set", passkey: "set", minAmount: 10, maxAmount: 5000 },
    });

    const { status, sent } = await pushAsCustomerOf("duka-merge");
    expect(status).toBe(200);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.body.BusinessShortCode).toBe(SHORTCODE);
    expect(sent[0]!.body.PartyB).toBe(SHORTCODE);
    expect(sent[0]!.body.Password).toBe(passwordFor(SHORTCODE, PASSKEY, sent[0]!.body.Timestamp));
  });

  it("removes a key given as null, and merges nested objects key by key", async () => {
    await createShop(t, "duka-null", { displayName: "Duka", corsOrigins: ["https://duka.example"], momo: { minAmount: 10, maxAmount: 900 } });
    const updated = await patch("duka-null", { settings: { displayName: null, momo: { minAmount: null, b2c: { maxAmount: 500 } } } });
    expect(updated.status).toBe(200);
    expect(updated.body.data.tenant.settings).toEqual({ corsOrigins: ["https://duka.example"], momo: { maxAmount: 900, b2c: { maxAmount: 500 } } });
    const again = await patch("duka-null", { settings: { momo: { b2c: { dailyLimit: 2000 } } } });
    expect(again.body.data.tenant.settings.momo).toEqual({ maxAmount: 900, b2c: { maxAmount: 500, dailyLimit: 2000 } });
  });

  it("refuses an incomplete credential group (422 VALIDATION_ERROR naming the missing fields), on create and on update; nothing is changed", async () => {
    const created = await adminApi(t, "POST", "/api/v1/admin/tenants", { id: "duka-partial", name: "Partial", settings: { momo: { shortcode: "600123", passkey: "p" } } });
    expect(created.status).toBe(422);
    expect(created.body.error.code).toBe("VALIDATION_ERROR");
    expect(created.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual(["settings.momo.consumerKey", "settings.momo.consumerSecret"]);
    expect(await t.deps.db.unscoped("test").tenant.findUnique({ where: { id: "duka-partial" } })).toBeNull();

    await createShop(t, "duka-groups", { momo: { ...OWN_STK } });
    const before = await storedMomo("duka-groups");
    const removed = await patch("duka-groups", { settings: { momo: { passkey: null } } });
    expect(removed.status).toBe(422);
    expect(removed.body.error.details).toEqual([{ path: "settings.momo.passkey", message: expect.any(String) }]);
    const halfB2c = await patch("duka-groups", { settings: { momo: { b2cShortcode: "600555" } } });
    expect(halfB2c.status).toBe(422);
    expect(halfB2c.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual(["settings.momo.initiatorName", "settings.momo.securityCredential"]);
    expect(await storedMomo("duka-groups")).toEqual(before);

    // The whole group removed at once is fine: the shop goes back to the platform's account.
    const all = await patch("duka-groups", { settings: { momo: { shortcode: null, consumerKey: null, consumerSecret: null, passkey: null } } });
    expect(all.status).toBe(200);
    expect(all.body.data.tenant.settings.momo).toEqual({});
  });

  it("stores Daraja secrets encrypted and never returns them; \"set\" written back keeps the stored secret", async () => {
    await createShop(t, "duka-secret", { momo: { ...OWN_STK, ...OWN_B2C } });
    const stored = await storedMomo("duka-secret");
    for (const [field, clear] of Object.entries({ consumerSecret: OWN_STK.consumerSecret, passkey: PASSKEY, securityCredential: OWN_B2C.securityCredential })) {
      expect(stored[field]).toEqual(expect.any(String));
      expect(stored[field]).not.toContain(clear);
    }
    expect(stored.shortcode).toBe(SHORTCODE);

    const listed = await adminApi(t, "GET", "/api/v1/admin/tenants");
    const shop = listed.body.data.tenants.find((x: { id: string }) => x.id === "duka-secret");
    expect(shop.settings.momo).toEqual({ ...OWN_STK, ...OWN_B2C, consumerSecret: "set", passkey: "set", securityCredential: "set" });
    expect(JSON.stringify(listed.body)).not.toContain(PASSKEY);
    expect(JSON.stringify(listed.body)).not.toContain(OWN_B2C.securityCredential);

    // What GET showed, sent back with one change: the secrets stay as they were.
    const echoed = await patch("duka-secret", { settings: { ...shop.settings, momo: { ...shop.settings.momo, maxAmount: 7000 } } });
    expect(echoed.status).toBe(200);
    const after = await storedMomo("duka-secret");
    expect(after).toMatchObject({ consumerSecret: stored.consumerSecret, passkey: stored.passkey, securityCredential: stored.securityCredential, maxAmount: 7000 });
    const { sent } = await pushAsCustomerOf("duka-secret");
    expect(sent[0]!.body.Password).toBe(passwordFor(SHORTCODE, PASSKEY, sent[0]!.body.Timestamp));

    // A new secret replaces the old one (encrypted too); "set" with nothing stored is refused.
    const replaced = await patch("duka-secret", { settings: { momo: { passkey: "a-new-passkey" } } });
    expect(replaced.body.data.tenant.settings.momo.passkey).toBe("set");
    expect((await storedMomo("duka-secret")).passkey).not.toContain("a-new-passkey");
    const nothingToKeep = await adminApi(t, "POST", "/api/v1/admin/tenants", { id: "duka-set", name: "x", settings: { momo: { ...OWN_STK, passkey: "set" } } });
    expect(nothingToKeep.status).toBe(422);
    expect(nothingToKeep.body.error.details).toEqual([{ path: "settings.momo.passkey", message: expect.any(String) }]);
  });

  it("never pays a shop with an incomplete stored group into the platform's short code (a first-release row): M-Pesa is unavailable for it", async () => {
    await t.deps.db.unscoped("test").tenant.create({ data: { id: "duka-legacy-partial", name: "Legacy", settings: { momo: { shortcode: "600777", passkey: "clear-passkey" } } } });
    const { status, sent } = await pushAsCustomerOf("duka-legacy-partial");
    expect(status).toBe(503);
    expect(sent).toEqual([]);
  });

  it("encrypts at start the secrets the first release stored in clear, and goes on using them", async () => {
    await t.deps.db.unscoped("test").tenant.create({ data: { id: "duka-legacy", name: "Legacy", settings: { displayName: "Old", momo: { ...OWN_STK, ...OWN_B2C } } } });
    const restarted = await startShopApp(fake.url, { database: t.database, dataKey });
    try {
      const stored = await storedMomo("duka-legacy");
      expect(stored.passkey).not.toContain(PASSKEY);
      expect(stored.consumerSecret).not.toContain(OWN_STK.consumerSecret);
      expect(stored.securityCredential).not.toContain(OWN_B2C.securityCredential);
      expect(stored).toMatchObject({ shortcode: SHORTCODE, consumerKey: OWN_STK.consumerKey, b2cShortcode: OWN_B2C.b2cShortcode });

      // A second start leaves the encrypted values as they are.
      const again = await startShopApp(fake.url, { database: t.database, dataKey });
      await again.close();
      expect(await storedMomo("duka-legacy")).toEqual(stored);

      const listed = await adminApi(restarted, "GET", "/api/v1/admin/tenants");
      expect(listed.body.data.tenants.find((x: { id: string }) => x.id === "duka-legacy").settings.momo.passkey).toBe("set");
      const customer = await shopCustomer(restarted, "duka-legacy");
      const before = fake.count("stkpush");
      const pushed = await new RestClient(restarted.url, "duka-legacy").post("/api/momo/stkpush", { phone: "0712345678", amount: 100 }, customer.accessToken);
      expect(pushed.status).toBe(200);
      const sent = fake.received.filter((r) => r.operation === "stkpush").slice(before);
      expect(sent[0]!.body.Password).toBe(passwordFor(SHORTCODE, PASSKEY, sent[0]!.body.Timestamp));
    } finally {
      await restarted.close();
    }
  });

  it("a shop without its own short code uses the platform's", async () => {
    await createShop(t, "duka-platform", { momo: { maxAmount: 1000 } });
    const { sent } = await pushAsCustomerOf("duka-platform");
    expect(sent[0]!.body.BusinessShortCode).toBe(PLATFORM.shortcode);
  });
});
