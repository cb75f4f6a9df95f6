/**
 * The webhook delivery worker's statements on both databases (docs/webhooks.md#fairness): the fair
 * claim takes what @mteja/shared's fairPick says (per endpoint, per tenant, in turns, in-flight counted),
 * locks and leases only that, and never gives two claims at once the same delivery; recording an
 * attempt keeps the endpoint's failing_since and disables it after WEBHOOK_DISABLE_AFTER_SECONDS.
 */
import { randomUUID } from "node:crypto";
import { webhooks, type Database } from "@mteja/db";
import { fairPick, type ReadyRow } from "@mteja/shared";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestDatabase, skipThisTarget, type TestDatabase } from "./support/database.js";

const t0 = new Date("2030-01-01T08:00:00.000Z");
const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);
const none = { tenants: new Map<string, number>(), endpoints: new Map<string, number>() };

describe.skipIf(skipThisTarget)("the webhook delivery claim", () => {
  let database: TestDatabase;
  let db: Database;
  const tenants = ["shop-a", "shop-b", "shop-c", "shop-d"];

  beforeAll(async () => {
    database = await createTestDatabase();
    db = database.db;
    await db.migrate();
    for (const id of tenants) await db.unscoped("test").tenant.create({ data: { id, name: id } });
  });
  afterAll(async () => database?.drop());
  beforeEach(async () => {
    await db.unscoped("test").webhookEvent.deleteMany();
    await db.unscoped("test").webhookEndpoint.deleteMany();
  });

  async function endpoint(tenantId: string): Promise<string> {
    const id = randomUUID();
    await db.unscoped("test").webhookEndpoint.create({ data: { id, tenantId, url: `http://127.0.0.1:9/${id}`, events: [], secretSealed: "sealed", createdAt: t0, updatedAt: t0 } });
    return id;
  }

  /** `count` due deliveries to an endpoint, one event each, due `from`, `from + 1`… seconds. */
  async function deliveries(tenantId: string, endpointId: string, count: number, from = 0): Promise<ReadyRow[]> {
    const rows = Array.from({ length: count }, (_, i) => ({ id: randomUUID(), eventId: `evt_${randomUUID().replace(/-/g, "")}`, dueAt: at(from + i) }));
    await db.unscoped("test").webhookEvent.createMany({ data: rows.map((row) => ({ id: row.eventId, tenantId, type: "payment.succeeded", body: "{}", createdAt: row.dueAt })) });
    await db.unscoped("test").webhookDelivery.createMany({ data: rows.map((row) => ({ id: row.id, tenantId, eventId: row.eventId, endpointId, nextAttemptAt: row.dueAt, createdAt: row.dueAt })) });
    return rows.map((row) => ({ id: row.id, tenantId, endpointId, dueAt: row.dueAt }));
  }

  const claim = (overrides: Partial<webhooks.DeliveryClaim> = {}) =>
    webhooks.claimDueDeliveries(db.unscoped("test"), {
      now: at(3600),
      leaseMs: 60_000,
      limit: 20,
      perTenant: 4,
      perEndpoint: 2,
      inFlight: none,
      ...overrides,
    });

  it("takes a flooding tenant's share (4, an endpoint 2) and another tenant's single delivery, and leases only those", async () => {
    const floodEndpoints = await Promise.all([1, 2, 3, 4, 5, 6].map(() => endpoint("shop-a")));
    for (const id of floodEndpoints) await deliveries("shop-a", id, 50);
    const [single] = await deliveries("shop-b", await endpoint("shop-b"), 1, 3000);

    const claimed = await claim();
    expect(claimed.filter((row) => row.tenant_id === "shop-a")).toHaveLength(4);
    expect(claimed.filter((row) => row.tenant_id === "shop-b").map((row) => row.id)).toEqual([single!.id]);
    const perEndpoint = new Map<string, number>();
    for (const row of claimed) perEndpoint.set(row.endpoint_id, (perEndpoint.get(row.endpoint_id) ?? 0) + 1);
    expect(Math.max(...perEndpoint.values())).toBeLessThanOrEqual(2);

    const leased = await db.unscoped("test").webhookDelivery.findMany({ where: { lockedUntil: { not: null } } });
    expect(leased.map((row) => row.id).sort()).toEqual(claimed.map((row) => row.id).sort());
    expect(leased.every((row) => row.nextAttemptAt.getTime() === at(3660).getTime() && row.lockedUntil!.getTime() === at(3660).getTime())).toBe(true);
  });

  it("counts what the instance has in flight: a tenant at its share and an endpoint at 2 get nothing more", async () => {
    const a1 = await endpoint("shop-a");
    const a2 = await endpoint("shop-a");
    const b1 = await endpoint("shop-b");
    await deliveries("shop-a", a1, 5);
    await deliveries("shop-a", a2, 5);
    await deliveries("shop-b", b1, 5);
    const inFlight = { tenants: new Map([["shop-a", 4], ["shop-b", 1]]), endpoints: new Map([[b1, 2]]) };
    expect(await claim({ inFlight })).toEqual([]);
    const claimed = await claim({ inFlight: { tenants: new Map([["shop-a", 3]]), endpoints: new Map([[a1, 2]]) } });
    expect(claimed.map((row) => row.endpoint_id).sort()).toEqual([a2, b1, b1].sort());
  });

  it("takes exactly what fairPick takes, whatever the mix", async () => {
    let seed = 7;
    const random = (max: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % max);
    for (let round = 0; round < 4; round += 1) {
      await db.unscoped("test").webhookEvent.deleteMany();
      const ready: ReadyRow[] = [];
      for (const tenantId of tenants) {
        for (let e = 0; e < 1 + random(3); e += 1) {
          const id = await endpoint(tenantId);
          ready.push(...(await deliveries(tenantId, id, random(6), random(100))));
        }
      }
      const endpointIds = [...new Set(ready.map((row) => row.endpointId!))];
      const inFlight = {
        tenants: new Map(tenants.slice(0, 2).map((tenantId) => [tenantId, random(4)] as const)),
        endpoints: new Map(endpointIds.slice(0, 3).map((id) => [id, random(3)] as const)),
      };
      const share = { limit: 2 + random(12), perTenant: 1 + random(4), perEndpoint: 2 };
      const expected = fairPick(ready, share, inFlight).map((row) => row.id).sort();
      const claimed = await claim({ ...share, inFlight });
      expect(claimed.map((row) => row.id).sort(), `round ${round}`).toEqual(expected);
    }
  });

  it("never gives two claims at once the same delivery, and a leased one is not claimed again before its lease ends", async () => {
    for (const tenantId of tenants) for (let e = 0; e < 3; e += 1) await deliveries(tenantId, await endpoint(tenantId), 4);
    const [first, second] = await Promise.all([claim({ limit: 10 }), claim({ limit: 10 })]);
    const ids = [...first!, ...second!].map((row) => row.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBeGreaterThan(0);
    const again = await claim({ limit: 100, perTenant: 100, perEndpoint: 100 });
    expect(again.filter((row) => ids.includes(row.id))).toEqual([]);
    const afterLease = await claim({ now: at(3600 + 61), limit: 100, perTenant: 100, perEndpoint: 100 });
    expect(afterLease.map((row) => row.id)).toEqual(expect.arrayContaining(ids));
  });

  describe("recording an attempt", () => {
    async function attempt(endpointId: string, deliveryId: string, eventId: string, acknowledged: boolean, seconds: number, disableAfterSeconds = 3 * 86_400) {
      return webhooks.recordAttempt(db.unscoped("test"), {
        deliveryId,
        tenantId: "shop-a",
        eventId,
        endpointId,
        attemptedAt: at(seconds),
        finishedAt: at(seconds),
        statusCode: acknowledged ? 200 : 500,
        error: null,
        acknowledged,
        attempts: 1,
        next: acknowledged ? { status: "delivered" } : { status: "pending", nextAttemptAt: at(seconds + 30) },
        disableIfFailingSince: at(seconds - disableAfterSeconds),
      });
    }

    it("keeps failing_since from the first failure, clears it on a success, and disables after 3 days of failures only", async () => {
      const id = await endpoint("shop-a");
      const rows = await deliveries("shop-a", id, 6);
      const eventOf = async (deliveryId: string) => (await db.unscoped("test").webhookDelivery.findUniqueOrThrow({ where: { id: deliveryId } })).eventId;
      const row = () => db.unscoped("test").webhookEndpoint.findUniqueOrThrow({ where: { id } });

      expect(await attempt(id, rows[0]!.id, await eventOf(rows[0]!.id), false, 0)).toEqual({ endpointDisabledFailingSince: null });
      expect(await row()).toMatchObject({ failingSince: at(0), enabled: true, disabledReason: null });
      await attempt(id, rows[1]!.id, await eventOf(rows[1]!.id), false, 86_400);
      expect((await row()).failingSince).toEqual(at(0));
      await attempt(id, rows[1]!.id, await eventOf(rows[1]!.id), true, 2 * 86_400);
      expect((await row()).failingSince).toBeNull();

      await attempt(id, rows[2]!.id, await eventOf(rows[2]!.id), false, 2 * 86_400 + 1);
      expect(await attempt(id, rows[3]!.id, await eventOf(rows[3]!.id), false, 5 * 86_400)).toEqual({ endpointDisabledFailingSince: null });
      expect((await row()).enabled).toBe(true);
      expect(await attempt(id, rows[4]!.id, await eventOf(rows[4]!.id), false, 5 * 86_400 + 1)).toEqual({ endpointDisabledFailingSince: at(2 * 86_400 + 1) });
      expect(await row()).toMatchObject({ enabled: false, disabledReason: "failing", failingSince: at(2 * 86_400 + 1), updatedAt: at(5 * 86_400 + 1) });
      // What it was still owed is dropped, the delivery that disabled it included; a later failure does not disable it twice.
      const pending = await db.unscoped("test").webhookDelivery.findMany({ where: { endpointId: id, status: "pending" } });
      expect(pending).toEqual([]);
      expect((await db.unscoped("test").webhookDelivery.findUniqueOrThrow({ where: { id: rows[4]!.id } })).status).toBe("dropped");
      expect(await attempt(id, rows[5]!.id, await eventOf(rows[5]!.id), false, 6 * 86_400)).toEqual({ endpointDisabledFailingSince: null });
      expect(await db.unscoped("test").webhookAttempt.count({ where: { endpointId: id } })).toBe(7);
    });
  });
});
