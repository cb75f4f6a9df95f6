/** The lease keeper's rules: renew every third of the lease; report a lease lost, never keep one another may hold. */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createLeaseKeeper, type HeldLease } from "../src/lease-keeper.js";

const leaseMs = 3_000;

describe("lease keeper", () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A store of leases: each row's lease end, as the claims and renewals set it. */
  function store() {
    const until = new Map<string, number>();
    const asked: HeldLease[][] = [];
    let down = false;
    return {
      until,
      asked,
      setDown: (value: boolean) => (down = value),
      async renew(held: readonly HeldLease[], to: Date): Promise<string[]> {
        asked.push([...held]);
        if (down) throw new Error("connection refused");
        const still = held.filter((lease) => until.get(lease.id) === lease.until.getTime());
        const renewed = still.map((lease) => lease.id);
        for (const id of renewed) until.set(id, to.getTime());
        return renewed;
      },
    };
  }

  it("renews what it holds every third of the lease, so the lease never runs out under it", async () => {
    const rows = store();
    const keeper = createLeaseKeeper({ leaseMs, now: () => new Date(), renew: rows.renew, onError: () => undefined });
    rows.until.set("a", leaseMs);
    const lost = vi.fn();
    keeper.hold("a", new Date(leaseMs), lost);
    await vi.advanceTimersByTimeAsync(leaseMs * 4);
    expect(rows.asked.length).toBeGreaterThanOrEqual(11);
    expect(rows.until.get("a")!).toBeGreaterThan(Date.now());
    expect(keeper.holds("a")).toBe(true);
    expect(lost).not.toHaveBeenCalled();
    keeper.release("a");
    const asked = rows.asked.length;
    await vi.advanceTimersByTimeAsync(leaseMs);
    expect(rows.asked.length).toBe(asked);
  });

  it("reports a lease lost when its row no longer holds the time it set (finished, or taken by another)", async () => {
    const rows = store();
    const keeper = createLeaseKeeper({ leaseMs, now: () => new Date(), renew: rows.renew, onError: () => undefined });
    rows.until.set("a", leaseMs);
    rows.until.set("b", leaseMs);
    const lostA = vi.fn();
    const lostB = vi.fn();
    keeper.hold("a", new Date(leaseMs), lostA);
    keeper.hold("b", new Date(leaseMs), lostB);
    rows.until.set("b", 99_999);
    await vi.advanceTimersByTimeAsync(leaseMs / 3);
    expect(lostA).not.toHaveBeenCalled();
    expect(lostB).toHaveBeenCalledTimes(1);
    expect(keeper.holds("b")).toBe(false);
    expect(rows.until.get("b")).toBe(99_999);
  });

  it("gives a lease up while a third of it is left when it cannot be renewed (the database away)", async () => {
    const rows = store();
    const errors: unknown[] = [];
    const onError = (error: unknown) => void errors.push(error);
    const keeper = createLeaseKeeper({ leaseMs, now: () => new Date(), renew: rows.renew, onError });
    rows.until.set("a", leaseMs);
    const lost = vi.fn();
    keeper.hold("a", new Date(leaseMs), lost);
    rows.setDown(true);
    await vi.advanceTimersByTimeAsync(leaseMs / 3);
    expect(lost).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(leaseMs / 3);
    expect(lost).toHaveBeenCalledTimes(1);
    expect(Date.now()).toBeLessThanOrEqual(leaseMs - leaseMs / 3);
    expect(errors).toHaveLength(2);
  });

  it("without a way to renew, gives leases up before they run out", async () => {
    const keeper = createLeaseKeeper({ leaseMs, now: () => new Date(), onError: () => undefined });
    const lost = vi.fn();
    keeper.hold("a", new Date(leaseMs), lost);
    await vi.advanceTimersByTimeAsync(leaseMs);
    expect(lost).toHaveBeenCalledTimes(1);
    expect(keeper.holds("a")).toBe(false);
  });
});
