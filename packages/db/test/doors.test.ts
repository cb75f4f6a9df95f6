/**
 * The three doors of a Database (docs/tenants.md#data-scoping), on the embedded database and, when it
 * answers, on PostgreSQL: a tenant's client, the unscoped one with a reason, and transactions over
 * either; plain SQL only behind a door, for the repositories.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as index from "../src/index.js";
import { scopeToTenant, TenantScopeViolation, type Database, type PrismaClient, type RawSql } from "../src/index.js";
import { plainFor, plainOf } from "../src/plain-access.js";
import { databaseTargets } from "./support/databases.js";

const targets = await databaseTargets("mteja_test", 3);

it("the package's index exports no way to plain SQL", () => {
  const exported = Object.keys(index);
  for (const name of ["plainOf", "plainFor", "givePlainAccess", "applyMigrations", "createTenantClients"]) {
    expect([name, exported.includes(name)]).toEqual([name, false]);
  }
});

for (const target of targets) {
  describe.skipIf(target.skip)(`a database's doors (${target.name})`, () => {
    let db: Database;
    let drop: () => Promise<void>;
    const count = (reference: string) => db.unscoped("test").payment.count({ where: { reference } });
    const insert = (sql: RawSql, reference: string) =>
      sql.$executeRaw`INSERT INTO payments (id, tenant_id, phone, amount, reference, description)
                      VALUES (gen_random_uuid(), 'shop-a', '254700000000', 1, ${reference}, 'D')`;

    beforeAll(async () => {
      ({ db, drop } = await target.open());
      await db.migrate();
      await db.unscoped("test").tenant.create({ data: { id: "shop-a", name: "A" } });
    });
    afterAll(() => drop?.());

    it("has the three doors and the database's life, and nothing else", () => {
      const members = ["kind", "forTenant", "unscoped", "transaction", "migrate", "pendingMigrations", "ping", "close"];
      expect(Object.keys(db).sort()).toEqual(members.sort());
    });

    it("opens one unscoped client whatever the reason, and one client per tenant", () => {
      expect(db.unscoped("worker")).toBe(db.unscoped("metrics"));
      expect(db.forTenant("shop-a")).toBe(db.forTenant("shop-a"));
      expect(db.forTenant("shop-a")).not.toBe(db.unscoped("worker"));
    });

    it("runs a plain transaction whole or not at all", async () => {
      await db.transaction(db.forTenant("shop-a"), "plain", async (tx) => {
        await insert(tx, "PLAIN-KEPT");
      });
      const failed = db.transaction(db.unscoped("test"), "plain", async (tx) => {
        await insert(tx, "PLAIN-UNDONE");
        throw new Error("rolled back");
      });
      await expect(failed).rejects.toThrow("rolled back");
      expect([await count("PLAIN-KEPT"), await count("PLAIN-UNDONE")]).toEqual([1, 0]);
    });

    it("commits each autocommit statement on its own", async () => {
      const failed = db.transaction(db.unscoped("test"), "autocommit", async (sql) => {
        await insert(sql, "AUTOCOMMIT");
        throw new Error("nothing to roll back");
      });
      await expect(failed).rejects.toThrow("nothing to roll back");
      expect(await count("AUTOCOMMIT")).toBe(1);
    });

    it("rolls a Prisma transaction back, on a tenant's client as on the unscoped one", async () => {
      const scoped = db.transaction(db.forTenant("shop-a"), async (tx) => {
        await insert(tx, "PRISMA-UNDONE");
        throw new Error("rolled back");
      });
      await expect(scoped).rejects.toThrow("rolled back");
      const unscoped = db.transaction(db.unscoped("test"), async (tx) => {
        await insert(tx, "PRISMA-UNDONE");
        throw new Error("rolled back");
      });
      await expect(unscoped).rejects.toThrow("rolled back");
      expect(await count("PRISMA-UNDONE")).toBe(0);
    });

    it("gives plain SQL to the repositories only through a door, a tenant's for its own tenant only", async () => {
      expect(() => plainOf(scopeToTenant(db.unscoped("test") as PrismaClient, "shop-a"))).toThrow(/Not a door/);
      await db.transaction(db.forTenant("shop-a"), async (tx) => {
        expect(() => plainOf(tx)).toThrow(/Not a door/);
      });
      expect(plainFor(db.forTenant("shop-a"), "shop-a")).toBe(plainOf(db.forTenant("shop-a")));
      expect(() => plainFor(db.forTenant("shop-a"), "shop-b")).toThrow(TenantScopeViolation);
      expect(() => plainFor(db.unscoped("test"), "shop-b")).not.toThrow();
    });
  });
}
