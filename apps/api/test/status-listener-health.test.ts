/**
 * The listening connection of payment status notices (docs/deployment.md#status-across-instances) shows
 * at /readyz and /metrics, as Redis does: `status_listener: "connected"` and
 * mteja_status_listener_connected 1 while it listens; `"reconnecting"`, `status: "degraded"` (still 200:
 * subscribers fall back to their 2 s re-check) and 0 while it is lost; back by itself. On PostgreSQL the
 * listener goes through a TCP proxy the test cuts (DATABASE_LISTEN_URL), the pool straight to the
 * database; the embedded database has no listener, and says nothing of one.
 */
import { afterAll, describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { createTestDatabase, skipThisTarget, target, type TestDatabase } from "./support/database.js";
import { startDatabaseProxy, type DatabaseProxy } from "./support/database-proxy.js";
import { sample } from "./support/metrics.js";
import type { TestApp } from "./support/app.js";
import { waitFor } from "./support/wait.js";

type Body = Record<string, unknown>;

async function readiness(t: TestApp) {
  const response = await fetch(`${t.url}/readyz`);
  return { status: response.status, body: (await response.json()) as Body };
}

const gauge = async (t: TestApp) => sample(await (await fetch(`${t.url}/metrics`)).text(), "mteja_status_listener_connected");

describe.skipIf(skipThisTarget || target !== "postgres")("the status listener's state (PostgreSQL)", () => {
  let database: TestDatabase | undefined;
  let proxy: DatabaseProxy;
  let t: TestApp;
  it.beforeAll(async ({ launch }) => {
    database = await createTestDatabase();
    const server = new URL(database.url!);
    proxy = await startDatabaseProxy({ host: server.hostname, port: Number(server.port || 5432) });
    t = await launch.app({ DATABASE_LISTEN_URL: proxy.through(database.url!) }, { database });
  });
  afterAll(async () => {
    await proxy?.close();
    await database?.drop();
  });

  it("is connected, then reconnecting while its connection is cut (200, degraded), then connected again", async () => {
    const connected = { status: 200, body: { status: "ready", database: "postgres", status_listener: "connected" } };
    expect(await waitFor(async () => (await readiness(t)).body.status_listener === "connected" && readiness(t))).toEqual(connected);
    expect(await gauge(t)).toBe(1);

    await proxy.cut("refuse");
    const lost = await waitFor(async () => {
      const ready = await readiness(t);
      return ready.body.status_listener === "reconnecting" && ready;
    });
    expect(lost).toEqual({ status: 200, body: { status: "degraded", database: "postgres", status_listener: "reconnecting" } });
    expect(await gauge(t)).toBe(0);

    await proxy.reopen();
    expect(await waitFor(async () => (await readiness(t)).body.status_listener === "connected" && readiness(t))).toEqual(connected);
    expect(await gauge(t)).toBe(1);
  });
});

describe.skipIf(skipThisTarget || target !== "embedded")("the status listener's state (embedded database)", () => {
  let t: TestApp;
  it.beforeAll(({ app }) => {
    t = app;
  });

  it("is not reported: nothing listens", async () => {
    expect(await readiness(t)).toEqual({ status: 200, body: { status: "ready", database: "embedded" } });
    expect(await gauge(t)).toBeUndefined();
  });
});
