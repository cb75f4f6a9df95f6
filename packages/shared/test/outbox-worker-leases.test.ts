/**
 * The outbox worker keeps the leases of what it sends (docs/deployment.md#leases-and-crashed-instances):
 * a send longer than a lease is not claimed by a second worker meanwhile, as long as the store renews
 * the lease; a send whose lease cannot be renewed is aborted before the lease runs out.
 */
import { describe, expect, it } from "vitest";
import { createLeasedOutboxWorker, type HeldLease, type LeasedOutboxStore, type OutboxItem } from "../src/index.js";

const leaseMs = 300;
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

interface Row extends OutboxItem {
  leasedUntil: number;
  sentAt?: number;
}

function memoryStore(rows: Row[], renewal: "works" | "fails"): LeasedOutboxStore<Row, void> {
  return {
    async claimDue({ limit, now, leaseMs: ms }) {
      const due = rows.filter((row) => row.sentAt === undefined && row.leasedUntil <= now.getTime()).slice(0, limit);
      for (const row of due) row.leasedUntil = now.getTime() + ms;
      return due.map((row) => ({ ...row }));
    },
    async markSent(id, sentAt) {
      rows.find((row) => row.id === id)!.sentAt = sentAt.getTime();
    },
    async markFailed(id, { nextAttemptAt, attempts }) {
      Object.assign(rows.find((row) => row.id === id)!, { leasedUntil: nextAttemptAt.getTime(), attempts });
    },
    async renewLeases(held: readonly HeldLease[], until: Date) {
      if (renewal === "fails") throw new Error("connection refused");
      const rowOf = (lease: HeldLease) => rows.find((row) => row.id === lease.id);
      const still = held.filter((lease) => rowOf(lease)?.leasedUntil === lease.until.getTime());
      for (const lease of still) rowOf(lease)!.leasedUntil = until.getTime();
      return still.map((lease) => lease.id);
    },
  };
}

function worker(store: LeasedOutboxStore<Row, void>, deliver: (signal: AbortSignal) => Promise<void>) {
  return createLeasedOutboxWorker<Row, void>({
    store,
    deliver: (_row, { signal }) => deliver(signal),
    describeFailure: (error) => ({ description: String(error), serverUnavailable: false }),
    logger: quiet,
    logFields: (row) => ({ id: row.id }),
    noun: "Item",
    leaseMs,
    random: { int: () => 0 },
  });
}

describe("the outbox worker's leases", () => {
  it("renews the lease of a send that outlasts it: a second worker does not claim the item meanwhile", async () => {
    const rows: Row[] = [{ id: "a", attempts: 0, leasedUntil: 0 }];
    const store = memoryStore(rows, "works");
    let sends = 0;
    const slow = worker(store, async () => {
      sends += 1;
      await new Promise((resolve) => setTimeout(resolve, leaseMs * 3));
    });
    const other = worker(store, async () => void (sends += 1));
    const first = slow.runOnce();
    for (let i = 0; i < 8; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, leaseMs / 2));
      await other.runOnce();
    }
    expect(await first).toEqual({ sent: 1, failed: 0 });
    expect(sends).toBe(1);
  });

  it("aborts a send whose lease it cannot renew, before the lease runs out", async () => {
    const rows: Row[] = [{ id: "a", attempts: 0, leasedUntil: 0 }];
    const started = Date.now();
    let abortedAfter = -1;
    const stuck = worker(memoryStore(rows, "fails"), (signal) =>
      new Promise((_resolve, reject) => {
        signal.addEventListener("abort", () => {
          abortedAfter = Date.now() - started;
          reject(new Error("aborted"));
        });
      }),
    );
    expect(await stuck.runOnce()).toEqual({ sent: 0, failed: 1 });
    expect(abortedAfter).toBeGreaterThan(0);
    expect(abortedAfter).toBeLessThan(leaseMs);
  });
});
