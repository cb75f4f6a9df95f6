/**
 * The tenant-scoped client (docs/tenants.md#data-scoping) on the embedded database and, when it
 * answers, on PostgreSQL: the tenant is added to where and data, another tenant is refused, and an
 * interactive transaction of a scoped client stays scoped.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TenantScopeViolation, tenantScopeOfModel, type Database, type PrismaClient } from "../src/index.js";
import { createTenantClients } from "../src/tenant-clients.js";
import { databaseTargets } from "./support/databases.js";

const targets = await databaseTargets("mteja_test", 3);

for (const target of targets) {
  describe.skipIf(target.skip)(`tenant-scoped client (${target.name})`, () => {
    let db: Database;
    let drop: () => Promise<void>;
    let aliceA: string;
    let aliceB: string;

    beforeAll(async () => {
      ({ db, drop } = await target.open());
      await db.migrate();
      await db.unscoped("test").tenant.createMany({ data: [{ id: "shop-a", name: "A" }, { id: "shop-b", name: "B" }] });
      aliceA = (await db.unscoped("test").user.create({ data: { tenantId: "shop-a", email: "alice@example.com", name: "Alice A", passwordHash: "x" } })).id;
      aliceB = (await db.unscoped("test").user.create({ data: { tenantId: "shop-b", email: "alice@example.com", name: "Alice B", passwordHash: "x" } })).id;
    });
    afterAll(() => drop?.());

    const shopA = () => db.forTenant("shop-a");

    it("reads only its tenant's rows, whatever the where says besides", async () => {
      expect((await shopA().user.findMany()).map((u) => u.name)).toEqual(["Alice A"]);
      expect(await shopA().user.count({ where: { email: "alice@example.com" } })).toBe(1);
      expect(await shopA().user.findUnique({ where: { id: aliceB } })).toBeNull();
      expect(await shopA().user.findFirst({ where: { id: aliceB } })).toBeNull();
      expect((await shopA().user.findUnique({ where: { id: aliceA } }))?.name).toBe("Alice A");
    });

    it("updates and deletes only its tenant's rows", async () => {
      const updated = await shopA().user.updateMany({ where: { email: "alice@example.com" }, data: { role: "admin" } });
      expect(updated.count).toBe(1);
      expect((await db.unscoped("test").user.findUniqueOrThrow({ where: { id: aliceB } })).role).toBeNull();
      await expect(shopA().user.update({ where: { id: aliceB }, data: { name: "Mallory" } })).rejects.toThrow();
      expect(await shopA().session.deleteMany({ where: { userId: aliceB } })).toEqual({ count: 0 });
      await shopA().user.updateMany({ where: { id: aliceA }, data: { role: null } });
    });

    it("writes its tenant into created rows, single and many", async () => {
      const session = await shopA().session.create({
        // @ts-expect-error Prisma's types still ask for the tenant; the scoped client fills it in
        data: { userId: aliceA, idleExpiresAt: new Date("2030-01-01T00:00:00Z"), absoluteExpiresAt: new Date("2030-01-01T00:00:00Z") },
      });
      expect(session.tenantId).toBe("shop-a");
      await shopA().mailOutbox.createMany({
        // @ts-expect-error Prisma's types still ask for the tenant; the scoped client fills it in
        data: [1, 2].map((n) => ({ kind: "verifyEmail", toAddress: `${n}@example.com`, fromName: "A", subject: "s", textBody: "t", htmlBody: "h" })),
      });
      expect(await db.unscoped("test").mailOutbox.count({ where: { tenantId: "shop-a" } })).toBe(2);
      const upserted = await shopA().user.upsert({
        where: { tenantId_email: { tenantId: "shop-a", email: "bob@example.com" } },
        // @ts-expect-error Prisma's types still ask for the tenant; the scoped client fills it in
        create: { email: "bob@example.com", name: "Bob", passwordHash: "x" },
        update: {},
      });
      expect(upserted.tenantId).toBe("shop-a");
    });

    it("refuses a where or data that names another tenant", async () => {
      await expect(shopA().user.findMany({ where: { tenantId: "shop-b" } })).rejects.toThrow(TenantScopeViolation);
      await expect(shopA().user.findUnique({ where: { tenantId_email: { tenantId: "shop-b", email: "alice@example.com" } } })).rejects.toThrow(
        TenantScopeViolation,
      );
      await expect(shopA().user.create({ data: { tenantId: "shop-b", email: "eve@example.com", name: "Eve", passwordHash: "x" } })).rejects.toThrow(
        TenantScopeViolation,
      );
      await expect(shopA().user.updateMany({ where: { id: aliceA }, data: { tenantId: "shop-b" } })).rejects.toThrow(TenantScopeViolation);
      await expect(shopA().user.findMany({ where: { tenantId: { in: ["shop-a", "shop-b"] } } })).rejects.toThrow(TenantScopeViolation);
      expect(await db.unscoped("test").user.count({ where: { email: "eve@example.com" } })).toBe(0);
    });

    it("accepts a where or data that names its own tenant", async () => {
      expect(await shopA().user.count({ where: { tenantId: "shop-a" } })).toBe(2);
      const found = await shopA().user.findUnique({ where: { tenantId_email: { tenantId: "shop-a", email: "alice@example.com" } } });
      expect(found?.id).toBe(aliceA);
    });

    it("refuses nested writes, which would pass the scope unchecked", async () => {
      await expect(
        shopA().user.update({
          where: { id: aliceA },
          data: { sessions: { create: { tenantId: "shop-b", idleExpiresAt: new Date(0), absoluteExpiresAt: new Date(0) } } },
        }),
      ).rejects.toThrow(TenantScopeViolation);
      await expect(
        shopA().session.create({
          data: { tenantId: "shop-a", userId: aliceA, idleExpiresAt: new Date(0), absoluteExpiresAt: new Date(0), refreshTokens: { create: { tokenHash: "nested" } } },
        }),
      ).rejects.toThrow(TenantScopeViolation);
      expect(await db.unscoped("test").session.count({ where: { tenantId: "shop-b" } })).toBe(0);
    });

    it("scopes rows without a tenant column through their parent", async () => {
      const sessionB = await db.unscoped("test").session.create({
        data: { tenantId: "shop-b", userId: aliceB, idleExpiresAt: new Date(0), absoluteExpiresAt: new Date(0) },
      });
      await db.unscoped("test").refreshToken.create({ data: { sessionId: sessionB.id, tokenHash: "token-of-b" } });
      await db.unscoped("test").recoveryCode.create({ data: { userId: aliceB, codeHash: "code-of-b" } });
      expect(await shopA().refreshToken.findUnique({ where: { tokenHash: "token-of-b" } })).toBeNull();
      expect(await db.forTenant("shop-b").refreshToken.findUnique({ where: { tokenHash: "token-of-b" } })).not.toBeNull();
      expect(await shopA().recoveryCode.updateMany({ where: { userId: aliceB }, data: { usedAt: new Date(0) } })).toEqual({ count: 0 });
      expect(await shopA().recoveryCode.deleteMany({ where: { AND: [{ userId: aliceB }] } })).toEqual({ count: 0 });
      expect(await db.unscoped("test").recoveryCode.count({ where: { userId: aliceB, usedAt: null } })).toBe(1);
    });

    it("sees only its own tenant row, and no data that is not a tenant's", async () => {
      expect((await shopA().tenant.findMany()).map((t) => t.id)).toEqual(["shop-a"]);
      await expect(shopA().tenant.findUnique({ where: { id: "shop-b" } })).rejects.toThrow(TenantScopeViolation);
      await expect(shopA().tenant.create({ data: { id: "shop-c", name: "C" } })).rejects.toThrow(TenantScopeViolation);
      await expect(shopA().signingKey.findMany()).rejects.toThrow(TenantScopeViolation);
      await expect(shopA().darajaCallback.findMany()).rejects.toThrow(TenantScopeViolation);
    });

    it("stays scoped inside an interactive transaction, and rolls back as one", async () => {
      const seen = await db.transaction(shopA(), async (tx) => {
        await expect(tx.user.findMany({ where: { tenantId: "shop-b" } })).rejects.toThrow(TenantScopeViolation);
        await tx.address.create({
          // @ts-expect-error Prisma's types still ask for the tenant; the scoped client fills it in
          data: { userId: aliceA, label: "Home", recipientName: "A", phone: "0722000111", street: "S", county: "kisumu" },
        });
        return tx.user.findMany({ select: { tenantId: true } });
      });
      expect(new Set(seen.map((u) => u.tenantId))).toEqual(new Set(["shop-a"]));
      expect((await db.unscoped("test").address.findFirstOrThrow({ where: { userId: aliceA } })).tenantId).toBe("shop-a");

      await expect(
        db.transaction(shopA(), async (tx) => {
          await tx.user.updateMany({ where: { id: aliceA }, data: { name: "Renamed" } });
          await tx.user.create({ data: { tenantId: "shop-b", email: "x@example.com", name: "X", passwordHash: "x" } });
        }),
      ).rejects.toThrow(TenantScopeViolation);
      expect((await db.unscoped("test").user.findUniqueOrThrow({ where: { id: aliceA } })).name).toBe("Alice A");
    });

    it("scoped to a mode as well, reads, writes and changes only that mode's rows (test mode)", async () => {
      const intent = (id: string, livemode: boolean) => ({
        id, tenantId: "shop-a", livemode, amount: 100, reference: id.toUpperCase().slice(0, 12), status: "requires_payment",
        expiresAt: new Date("2030-01-01T00:00:00Z"),
      });
      await db.unscoped("test").paymentIntent.createMany({ data: [intent("pi_live", true), intent("pi_test", false)] });
      const testMode = db.forTenant("shop-a", { livemode: false });
      const liveMode = db.forTenant("shop-a", { livemode: true });
      expect((await testMode.paymentIntent.findMany()).map((row) => row.id)).toEqual(["pi_test"]);
      expect((await liveMode.paymentIntent.findMany()).map((row) => row.id)).toEqual(["pi_live"]);
      expect(await testMode.paymentIntent.findUnique({ where: { id: "pi_live" } })).toBeNull();
      expect(await testMode.paymentIntent.updateMany({ where: { id: "pi_live" }, data: { status: "canceled" } })).toEqual({ count: 0 });
      // Without a mode the tenant's client sees both (a customer's own payments are of either mode).
      expect(await shopA().paymentIntent.count({ where: { id: { in: ["pi_live", "pi_test"] } } })).toBe(2);
      const { tenantId: _, livemode: __, ...fields } = intent("pi_made_in_test", true);
      // @ts-expect-error Prisma's types still ask for the tenant; the scoped client fills it in (and the mode)
      expect((await testMode.paymentIntent.create({ data: fields })).livemode).toBe(false);
      await expect(testMode.paymentIntent.create({ data: intent("pi_mallory", true) })).rejects.toThrow(/another mode/);
      await expect(testMode.paymentIntent.findFirst({ where: { livemode: true } })).rejects.toThrow(/another mode/);
      await expect(testMode.paymentIntent.updateMany({ where: {}, data: { livemode: true } })).rejects.toThrow(/another mode/);
      // Models without a mode are scoped by tenant only.
      expect(await testMode.user.count({ where: { id: aliceA } })).toBe(1);
      expect(testMode).toBe(db.forTenant("shop-a", { livemode: false }));
      expect(testMode).not.toBe(liveMode);
      expect(testMode).not.toBe(shopA());
    });

    it("is built once per tenant and reused", () => {
      expect(db.forTenant("shop-a")).toBe(db.forTenant("shop-a"));
      expect(db.forTenant("shop-a")).not.toBe(db.forTenant("shop-b"));
    });
  });
}

describe("the scoping table", () => {
  const schema = readFileSync(fileURLToPath(new URL("../../../prisma/schema.prisma", import.meta.url)), "utf8");
  const models = [...schema.matchAll(/^model (\w+) \{\n([\s\S]*?)^\}/gm)].map(([, name, body]) => ({ name: name!, body: body! }));
  const modelNames = new Set(models.map((m) => m.name));

  it("lists every model with a tenantId column as tenant-owned, and no other", () => {
    const withTenant = models.filter((m) => /^\s+tenantId\s/m.test(m.body)).map((m) => m.name);
    expect([...tenantScopeOfModel.tenantOwned].sort()).toEqual(withTenant.sort());
  });

  it("lists every model with a livemode column as mode-owned, and no other", () => {
    const withMode = models.filter((m) => /^\s+livemode\s/m.test(m.body)).map((m) => m.name);
    expect([...tenantScopeOfModel.modeOwned].sort()).toEqual(withMode.sort());
  });

  it("knows every relation field, so no nested write slips past", () => {
    for (const model of models) {
      const relations = [...model.body.matchAll(/^ +(\w+) +(\w+)(\[\]|\?)?\s/gm)].filter(([, , type]) => modelNames.has(type!)).map(([, field]) => field);
      expect([model.name, [...(tenantScopeOfModel.relationFields[model.name] ?? [])].sort()]).toEqual([model.name, relations.sort()]);
    }
  });
});

describe("the scoped-client cache", () => {
  it("keeps a bounded number of tenants, dropping the least recently used", () => {
    let built = 0;
    const prisma = { $extends: () => ({ built: ++built }) } as unknown as PrismaClient;
    const clients = createTenantClients(prisma, 2);
    const a = clients.forTenant("a");
    const b = clients.forTenant("b");
    expect(clients.forTenant("a")).toBe(a);
    clients.forTenant("c");
    expect(clients.forTenant("a")).toBe(a);
    expect(clients.forTenant("b")).not.toBe(b);
    expect(built).toBe(4);
  });
});
