/**
 * The plain transaction of raw SQL (src/raw-sql.ts) and the raw rows written through it
 * (src/model-rows.ts), on the embedded database and, when it answers, on PostgreSQL: committed when the
 * function returns, rolled back when it throws, rows read back exactly as Prisma's model queries read
 * them, on either kind of transaction, and unique violations recognised from every path.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isUniqueViolation, Prisma, type Database, type PaymentModel, type RawSql } from "../src/index.js";
import { changedRow, insertRow, paymentsTable, updateRow } from "../src/model-rows.js";
import { databaseTargets, plainSqlOf } from "./support/databases.js";

const targets = await databaseTargets("mteja_raw_tx");

const at = new Date("2026-11-27T10:00:00.123Z");

function newPayment(overrides: Partial<PaymentModel> = {}): Partial<PaymentModel> {
  return { id: randomUUID(), tenantId: "shop", phone: "254712345678", amount: 100, reference: "ORDER1", description: "Payment", createdAt: at, updatedAt: at, ...overrides };
}

for (const target of targets) {
  describe.skipIf(target.skip)(`raw transactions (${target.name})`, () => {
    let db: Database;
    let drop: () => Promise<void>;

    beforeAll(async () => {
      ({ db, drop } = await target.open());
      await db.migrate();
      await db.unscoped("test").tenant.create({ data: { id: "shop", name: "Shop" } });
    });
    afterAll(() => drop?.());

    it("commits what the function wrote when it returns, and answers its result", async () => {
      const row = newPayment();
      const result = await db.transaction(db.unscoped("test"), "plain", async (tx) => (await insertRow(tx, paymentsTable, row)).id);
      expect(result).toBe(row.id);
      expect(await db.unscoped("test").payment.findUnique({ where: { id: row.id! } })).not.toBeNull();
    });

    it("autocommit: each statement commits on its own, reads rows as Prisma does, and counts what it changed", async () => {
      const row = newPayment();
      expect(await plainSqlOf(db).autocommit.$executeRaw`INSERT INTO payments (id, tenant_id, phone, amount, reference, description, created_at, updated_at)
        VALUES (${row.id}::uuid, 'shop', '254712345678', 100, 'ORDER1', 'Payment', ${at}, ${at})`).toBe(1);
      expect(await db.unscoped("test").payment.findUniqueOrThrow({ where: { id: row.id! } })).toMatchObject({ amount: 100, updatedAt: at });
      const rows = await plainSqlOf(db).autocommit.$queryRaw<Record<string, unknown>[]>`SELECT ${paymentsTable.columns} FROM payments WHERE id = ${row.id}::uuid`;
      expect(paymentsTable.fromRow(rows[0]!)).toEqual(await db.unscoped("test").payment.findUniqueOrThrow({ where: { id: row.id! } }));
      expect(await plainSqlOf(db).autocommit.$executeRaw`UPDATE payments SET amount = 101 WHERE id = ${row.id}::uuid AND updated_at = ${new Date(at.getTime() + 1)}`).toBe(0);
    });

    it("rolls back everything when the function throws, and the connection serves the next transaction", async () => {
      const row = newPayment();
      await expect(
        db.transaction(db.unscoped("test"), "plain", async (tx) => {
          await insertRow(tx, paymentsTable, row);
          throw new Error("decided against it");
        }),
      ).rejects.toThrow("decided against it");
      expect(await db.unscoped("test").payment.findUnique({ where: { id: row.id! } })).toBeNull();
      for (let i = 0; i < 3; i += 1) expect(await db.transaction(db.unscoped("test"), "plain", async (tx) => tx.$queryRaw<{ one: number }[]>`SELECT 1 AS one`)).toEqual([{ one: 1 }]);
    });

    it("keeps a failed statement's parameters off its error, so a logged error cannot carry them", async () => {
      const transId = `P${Date.now()}`;
      await db.transaction(db.unscoped("test"), "plain", (tx) => insertRow(tx, paymentsTable, newPayment({ transId })));
      const error = await db.transaction(db.unscoped("test"), "plain", (tx) => insertRow(tx, paymentsTable, newPayment({ transId, phone: "254700999888" }))).catch((failure: unknown) => failure);
      expect(isUniqueViolation(error)).toBe(true);
      expect(JSON.stringify(error)).not.toContain("254700999888");
    });

    it("answers how many rows $executeRaw changed", async () => {
      const row = newPayment({ reference: "COUNTED" });
      await db.transaction(db.unscoped("test"), "plain", (tx) => insertRow(tx, paymentsTable, row));
      expect(await db.transaction(db.unscoped("test"), "plain", async (tx) => tx.$executeRaw`UPDATE payments SET description = ${"Changed"} WHERE reference = ${"COUNTED"}`)).toBe(1);
      expect(await db.transaction(db.unscoped("test"), "plain", async (tx) => tx.$executeRaw`UPDATE payments SET description = ${"Changed"} WHERE reference = ${"NONE"}`)).toBe(0);
    });

    it("reads, writes and returns rows exactly as Prisma's model queries do, on a plain and on a Prisma transaction; changedRow foretells an update", async () => {
      const row = newPayment({ intentId: null, paidAmount: null });
      const inserted = await db.transaction(db.unscoped("test"), "plain", (tx) => insertRow(tx, paymentsTable, row));
      expect(inserted).toEqual(await db.unscoped("test").payment.findUniqueOrThrow({ where: { id: row.id! } }));

      const settledAt = new Date("2026-11-27T10:05:00.456Z");
      const changes = { status: "SUCCESS", mpesaReceipt: `R${Date.now()}`, paidAmount: 100, settledAt, updatedAt: settledAt, lastError: null, duplicate: true };
      const alsoWrite = Prisma.sql`renamed AS (UPDATE tenants SET name = ${"Renamed in the same statement"} WHERE id = 'shop' RETURNING id)`;
      const updated = await db.transaction(db.unscoped("test"), "plain", (tx) => updateRow(tx, paymentsTable, row.id!, { ...changes, resultCode: undefined }, alsoWrite));
      expect(updated).toMatchObject(changes);
      expect(changedRow(inserted, { ...changes, resultCode: undefined })).toEqual(updated);
      expect((await db.unscoped("test").tenant.findUniqueOrThrow({ where: { id: "shop" } })).name).toBe("Renamed in the same statement");
      expect(updated).toEqual(await db.unscoped("test").payment.findUniqueOrThrow({ where: { id: row.id! } }));

      const readRow = async (tx: RawSql, id: string) => {
        const rows = await tx.$queryRaw<Record<string, unknown>[]>`SELECT ${paymentsTable.columns} FROM payments WHERE id = ${id}::uuid FOR UPDATE`;
        return rows[0] ? paymentsTable.fromRow(rows[0]) : undefined;
      };
      const viaPrisma = await db.transaction(db.unscoped("test"), (tx) => readRow(tx, row.id!));
      expect(viaPrisma).toEqual(updated);
      expect(await db.transaction(db.unscoped("test"), "plain", (tx) => readRow(tx, randomUUID()))).toBeUndefined();
    });

    it("refuses to update a row that is not there, with a field the table does not have, or without updatedAt", async () => {
      await expect(db.transaction(db.unscoped("test"), "plain", (tx) => updateRow(tx, paymentsTable, randomUUID(), { status: "FAILED", updatedAt: at }))).rejects.toThrow(/no row/);
      await expect(db.transaction(db.unscoped("test"), "plain", (tx) => updateRow(tx, paymentsTable, randomUUID(), { nonsense: 1, updatedAt: at } as never))).rejects.toThrow(/no field nonsense/);
      await expect(db.transaction(db.unscoped("test"), "plain", (tx) => updateRow(tx, paymentsTable, randomUUID(), { status: "FAILED" }))).rejects.toThrow(/must write updatedAt/);
    });

    it("recognises a unique violation from a plain transaction, a Prisma raw query and a Prisma model query", async () => {
      const transId = `T${Date.now()}`;
      await db.transaction(db.unscoped("test"), "plain", (tx) => insertRow(tx, paymentsTable, newPayment({ transId })));
      const plain = await db.transaction(db.unscoped("test"), "plain", (tx) => insertRow(tx, paymentsTable, newPayment({ transId }))).catch((error: unknown) => error);
      const prismaRaw = await db.unscoped("test")
        .$executeRaw`INSERT INTO payments (id, tenant_id, phone, amount, reference, description, trans_id) VALUES (${randomUUID()}::uuid, 'shop', '1', 1, 'R', 'D', ${transId})`
        .catch((error: unknown) => error);
      const { id: _id, ...fields } = newPayment({ transId });
      const prismaModel = await db.unscoped("test").payment.create({ data: fields as never }).catch((error: unknown) => error);
      const verdicts = Object.entries({ plain, prismaRaw, prismaModel }).map(([path, error]) => [path, isUniqueViolation(error)]);
      expect(verdicts, [plain, prismaRaw, prismaModel].map((error) => `${String(error).slice(0, 200)} ${JSON.stringify(error)}`).join("\n")).toEqual([
        ["plain", true],
        ["prismaRaw", true],
        ["prismaModel", true],
      ]);
      expect(isUniqueViolation(new Error("something else"))).toBe(false);
      const otherFailure = await db.transaction(db.unscoped("test"), "plain", async (tx) => tx.$queryRaw`SELECT 1/0`).catch((error: unknown) => error);
      expect(isUniqueViolation(otherFailure)).toBe(false);
    });
  });
}
