/** Liveness and readiness probes: GET /healthz never depends on the database; GET /readyz does. */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "./support/app.js";
import { adminUrl, skipThisTarget } from "./support/database.js";
import { waitFor } from "./support/wait.js";

describe.skipIf(skipThisTarget)("health probes", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    // The database is already closed by the last test: close what is left, then drop a PostgreSQL one by name.
    await t?.close().catch(() => undefined);
    if (t?.database.url) {
      const admin = new pg.Client({ connectionString: adminUrl });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${new URL(t.database.url).pathname.slice(1)} WITH (FORCE)`);
      await admin.end();
    }
  });

  it("answers GET /healthz and GET /readyz while the database is up", async () => {
    const health = await fetch(`${t.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
    // On PostgreSQL the listening connection of status notices (status-listener-health.test.ts) connects at start.
    const listening = t.database.db.kind === "postgres" ? { status_listener: "connected" } : {};
    const ready = await waitFor(async () => {
      const answer = await fetch(`${t.url}/readyz`);
      const body = (await answer.json()) as Record<string, unknown>;
      return body.status_listener !== "reconnecting" && { status: answer.status, body };
    });
    expect(ready).toEqual({ status: 200, body: { status: "ready", database: t.database.db.kind, ...listening } });
  });

  it("answers /readyz 503 once the database is gone, while /healthz stays 200", async () => {
    await t.database.db.close();
    const ready = await fetch(`${t.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: "database unreachable" });
    expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
  });
});
