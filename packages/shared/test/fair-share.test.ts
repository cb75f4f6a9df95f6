import { describe, expect, it } from "vitest";
import { createInFlightLedger, fairPick, quarterShare, type ReadyRow } from "../src/fair-share.js";

const t0 = Date.parse("2026-11-28T12:00:00Z");

/** `count` rows of a tenant (and endpoint), due one second apart from `from` seconds. */
function rows(tenantId: string, count: number, { from = 0, endpointId }: { from?: number; endpointId?: string } = {}): ReadyRow[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `${tenantId}-${endpointId ?? "x"}-${String(i).padStart(4, "0")}`,
    tenantId,
    ...(endpointId ? { endpointId } : {}),
    dueAt: new Date(t0 + (from + i) * 1000),
  }));
}

const ids = (picked: ReadyRow[]) => picked.map((row) => row.id);
const tenantsOf = (picked: ReadyRow[]) => picked.map((row) => row.tenantId);

describe("fairPick", () => {
  it("takes a tenant's share of a deep backlog and a late tenant's single row in the same claim", () => {
    const backlog = rows("big", 300);
    const single = rows("small", 1, { from: 1_000 });
    const picked = fairPick([...backlog, ...single], { limit: 20, perTenant: 5 });
    expect(tenantsOf(picked)).toEqual(["big", "small", "big", "big", "big", "big"]);
    expect(ids(picked).slice(2)).toEqual(ids(backlog.slice(1, 5)));
  });

  it("takes turns across tenants: everyone's first row, then everyone's second, oldest first within a turn", () => {
    const picked = fairPick([...rows("a", 3, { from: 0 }), ...rows("b", 3, { from: 10 }), ...rows("c", 1, { from: 5 })], { limit: 5, perTenant: 4 });
    expect(tenantsOf(picked)).toEqual(["a", "c", "b", "a", "b"]);
  });

  it("counts what is in flight: a tenant already at its share gets nothing, one with rows in flight comes later in the turns", () => {
    const inFlight = { tenants: new Map([["a", 4], ["b", 1]]), endpoints: new Map() };
    const picked = fairPick([...rows("a", 5), ...rows("b", 5, { from: 1 }), ...rows("c", 5, { from: 2 })], { limit: 6, perTenant: 4 }, inFlight);
    expect(tenantsOf(picked)).toEqual(["c", "b", "c", "b", "c", "b"]);
  });

  it("keeps at most perEndpoint rows of an endpoint, those in flight counted, before the tenant's share", () => {
    const ready = [...rows("a", 5, { endpointId: "e1" }), ...rows("a", 5, { from: 1, endpointId: "e2" }), ...rows("a", 5, { from: 2, endpointId: "e3" })];
    const picked = fairPick(ready, { limit: 20, perTenant: 4, perEndpoint: 2 }, { tenants: new Map(), endpoints: new Map([["e1", 1]]) });
    expect(picked.map((row) => row.endpointId)).toEqual(["e1", "e2", "e2", "e3"]);
    expect(fairPick(ready, { limit: 20, perTenant: 10, perEndpoint: 2 })).toHaveLength(6);
  });

  it("takes nothing without free slots, and everything when the shares allow it", () => {
    expect(fairPick(rows("a", 3), { limit: 0, perTenant: 4 })).toEqual([]);
    expect(fairPick(rows("a", 3), { limit: -1, perTenant: 4 })).toEqual([]);
    expect(ids(fairPick(rows("a", 3), { limit: 10, perTenant: 10 }))).toEqual(ids(rows("a", 3)));
  });

  it("breaks ties of the due time by id", () => {
    const at = new Date(t0);
    const picked = fairPick([{ id: "b", tenantId: "t", dueAt: at }, { id: "a", tenantId: "t", dueAt: at }], { limit: 2, perTenant: 2 });
    expect(ids(picked)).toEqual(["a", "b"]);
  });
});

describe("quarterShare", () => {
  it("is a quarter of the capacity, rounded down, at least one", () => {
    expect([20, 4, 3, 1, 0].map(quarterShare)).toEqual([5, 1, 1, 1, 1]);
  });
});

describe("the in-flight ledger", () => {
  it("counts sends per tenant and per endpoint as they start and end", () => {
    const ledger = createInFlightLedger();
    ledger.add({ tenantId: "a", endpointId: "e1" });
    ledger.add({ tenantId: "a", endpointId: "e2" });
    ledger.add({ tenantId: "b" });
    expect(ledger.size).toBe(3);
    expect([...ledger.tenants]).toEqual([["a", 2], ["b", 1]]);
    expect([...ledger.endpoints]).toEqual([["e1", 1], ["e2", 1]]);
    ledger.remove({ tenantId: "a", endpointId: "e1" });
    ledger.remove({ tenantId: "b" });
    expect(ledger.size).toBe(1);
    expect([...ledger.tenants]).toEqual([["a", 1]]);
    expect([...ledger.endpoints]).toEqual([["e2", 1]]);
  });
});
