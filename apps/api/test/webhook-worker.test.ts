/**
 * The webhook delivery worker's schedule (src/runtime/webhooks.ts): a commit that wrote events nudges
 * it, and the nudges of a burst of settlements share one claim of due deliveries instead of costing
 * one claim each (docs/performance.md, "Callback ingestion"), while a send that ends claims again at once.
 * Driven by fake timers; the database is a stand-in that counts the claims (a plain statement, so the
 * stand-in is given plain SQL as a real door is) and answers the deliveries a test makes due, whose
 * endpoint is gone: each is dropped at once (the stand-in refuses that write too), and frees its slot.
 */
import type { Deps, Logger } from "@mteja/domain";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createWebhooksRuntime, type WebhooksRuntime } from "../src/runtime/webhooks.js";
import { readSettings } from "../src/settings.js";
import { skipDatabaseAgnostic } from "./support/database.js";
// The door's plain SQL, which @mteja/db keeps to its repositories: only a stand-in door needs it here.
import { givePlainAccess, type PlainSql } from "../../../packages/db/src/plain-access.js";

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined } as unknown as Logger;

// Nothing here is database-specific: it runs once.
describe.skipIf(skipDatabaseAgnostic)("the webhook delivery worker's nudges", () => {
  let claims: number;
  let due: { id: string; tenant_id: string; event_id: string; endpoint_id: string; attempts: number; endpoint: null; event: null }[];
  let runtime: WebhooksRuntime;

  beforeEach(async () => {
    vi.useFakeTimers();
    claims = 0;
    due = [];
    const refused = async () => {
      throw new Error("the stand-in database has no rows");
    };
    const plain = {
      autocommit: { $queryRaw: async () => ((claims += 1), due.splice(0)), $executeRaw: refused },
      sql: { query: refused, exec: refused, withLock: refused },
      transactions: refused,
    } as unknown as PlainSql;
    const database = givePlainAccess({}, plain);
    const deps = { clock: { now: () => new Date() }, db: { unscoped: () => database } } as unknown as Deps;
    runtime = createWebhooksRuntime(readSettings({}), quiet, () => deps);
    runtime.start();
    await vi.advanceTimersByTimeAsync(10);
    claims = 0;
  });
  afterEach(async () => {
    await runtime.close();
    vi.useRealTimers();
  });

  it("claims soon after a nudge, long before the next poll", async () => {
    runtime.deps.nudge();
    await vi.advanceTimersByTimeAsync(50);
    expect(claims).toBe(1);
  });

  it("shares one claim among the nudges of a burst: 100 settlements 2 ms apart cost at most one claim per 20 ms", async () => {
    for (let i = 0; i < 100; i += 1) {
      runtime.deps.nudge();
      await vi.advanceTimersByTimeAsync(2);
    }
    await vi.advanceTimersByTimeAsync(50);
    expect(claims).toBeGreaterThanOrEqual(5);
    expect(claims).toBeLessThanOrEqual(12);
  });

  it("claims again as soon as a send ends, not a nudge window later: a backlog keeps every slot busy", async () => {
    due = [{ id: "d1", tenant_id: "t1", event_id: "e1", endpoint_id: "00000000-0000-4000-8000-000000000001", attempts: 0, endpoint: null, event: null }];
    runtime.deps.nudge();
    await vi.advanceTimersByTimeAsync(20);
    expect(claims).toBe(1);
    // The claimed delivery's send has ended: its slot asks for the next claim at once.
    await vi.advanceTimersByTimeAsync(5);
    expect(claims).toBe(2);
  });

  it("still polls for due retries once a second without nudges", async () => {
    await vi.advanceTimersByTimeAsync(3_050);
    expect(claims).toBe(3);
  });
});
