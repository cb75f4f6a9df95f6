/**
 * Renewing leases (src/repositories/leases.ts), on the embedded database and on PostgreSQL when it
 * answers: a lease still as its holder set it moves to the new end (with `locked_until` where the table
 * keeps one); a lease that changed meanwhile (finished, or claimed by another instance) is left alone.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { leases, type Database } from "../src/index.js";
import { databaseTargets } from "./support/databases.js";

const targets = await databaseTargets("mteja_leases");

const claimedUntil = new Date("2026-12-01T10:00:10.123Z");
const renewedUntil = new Date("2026-12-01T10:00:13.456Z");

for (const target of targets) {
  describe.skipIf(target.skip)(`lease renewal (${target.name})`, () => {
    let db: Database;
    let drop: () => Promise<void>;

    beforeAll(async () => {
      ({ db, drop } = await target.open());
      await db.migrate();
      await db.unscoped("test").tenant.create({ data: { id: "shop", name: "Shop" } });
    });
    afterAll(() => drop?.());

    async function payment(nextQueryAt: Date | null): Promise<string> {
      const id = randomUUID();
      await db.unscoped("test").payment.create({
        data: { id, tenantId: "shop", phone: "254712345678", amount: 10, reference: "R",
          description: "D", nextQueryAt },
      });
      return id;
    }

    it("renews the leases still as held, and only those", async () => {
      const later = new Date("2026-12-01T10:00:30Z");
      const [held, finished, taken] = [await payment(claimedUntil), await payment(null), await payment(later)];
      const asked = [held, finished, taken].map((id) => ({ id, until: claimedUntil }));
      expect(await leases.renew(db.unscoped("test"), "payments", asked, renewedUntil)).toEqual([held]);
      const rows = await db.unscoped("test").payment.findMany({ where: { tenantId: "shop" } });
      const byId = new Map(rows.map((row) => [row.id, row.nextQueryAt?.toISOString() ?? null]));
      expect(byId.get(held)).toBe(renewedUntil.toISOString());
      expect(byId.get(finished)).toBeNull();
      expect(byId.get(taken)).toBe(later.toISOString());
      // Renewed once, a lease is held at its new end, not its old one.
      const stale = [{ id: held, until: claimedUntil }];
      expect(await leases.renew(db.unscoped("test"), "payments", stale, renewedUntil)).toEqual([]);
    });

    it("moves locked_until with the lease where the table keeps one", async () => {
      const mail = await db.unscoped("test").mailOutbox.create({
        data: {
          tenantId: "shop",
          kind: "verifyEmail",
          toAddress: "a@example.com",
          fromName: "Shop",
          subject: "S",
          textBody: "T",
          htmlBody: "H",
          nextAttemptAt: claimedUntil,
          lockedUntil: claimedUntil,
        },
      });
      const held = [{ id: mail.id, until: claimedUntil }];
      expect(await leases.renew(db.unscoped("test"), "mail_outbox", held, renewedUntil)).toEqual([mail.id]);
      const row = await db.unscoped("test").mailOutbox.findUniqueOrThrow({ where: { id: mail.id } });
      expect([row.nextAttemptAt, row.lockedUntil]).toEqual([renewedUntil, renewedUntil]);
      expect(await leases.renew(db.unscoped("test"), "mail_outbox", [], renewedUntil)).toEqual([]);
    });
  });
}
