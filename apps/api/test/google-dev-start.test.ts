/**
 * The dev start (`npm start` sets MTEJA_DEV_START=1): without OIDC_GOOGLE_ISSUER the service runs the
 * Google simulator in-process on GOOGLE_SIM_PORT and gives the default shop its client, sending the
 * browser back to the demo (APP_URL): "Sign in with Google" works with no internet.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildServer } from "../src/server.js";
import { createServices, type Services } from "../src/runtime/services.js";
import { readSettings } from "../src/settings.js";
import type { TestApp } from "./support/app.js";
import { createTestDatabase, skipThisTarget, type TestDatabase } from "./support/database.js";
import { freePort } from "./support/ports.js";
import { accessTokenFrom, finishAtCallback, throughGoogle } from "./support/google.js";

const silent = { info() {}, warn() {}, error() {}, debug() {} };

describe.skipIf(skipThisTarget)("dev start with the in-process Google simulator", () => {
  let database: TestDatabase;
  let services: Services;
  let app: FastifyInstance;
  let url: string;
  let googleSimPort: number;
  const dataDir = mkdtempSync(path.join(tmpdir(), "mteja-google-dev-start-"));

  beforeAll(async () => {
    const port = await freePort();
    googleSimPort = await freePort();
    url = `http://127.0.0.1:${port}`;
    database = await createTestDatabase();
    const settings = readSettings({
      NODE_ENV: "development",
      LOG_LEVEL: "silent",
      MTEJA_DEV_START: "1",
      MOMO_SIMULATOR: "off",
      PORT: String(port),
      GOOGLE_SIM_PORT: String(googleSimPort),
      PUBLIC_URL: url,
      APP_URL: `${url}/demo`,
      DATA_DIR: dataDir,
      DATA_ENCRYPTION_KEY: "0".repeat(64),
      MOMO_RECONCILE_INTERVAL_MS: "0",
    });
    services = await createServices(settings, silent, { db: database.db });
    app = await buildServer({ settings, deps: services.deps, logger: false });
    await app.listen({ host: "127.0.0.1", port });
  });
  afterAll(async () => {
    await app?.close();
    await services?.close();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("sends the demo's button to the simulator on GOOGLE_SIM_PORT and back to the demo, signed in", async () => {
    const t = { url } as TestApp;
    const trip = await throughGoogle(t, { tenantId: "default" }, { email: "dev-start@example.com" }, { redirectUri: `${url}/demo/` });
    const back = await finishAtCallback(t, trip);
    expect(back.location).toBe(`${url}/demo/`);
    const token = await accessTokenFrom(t, "default", back.refreshCookie!);
    const me = await fetch(`${url}/api/v1/auth/me`, { headers: { authorization: `Bearer ${token}`, "x-tenant-id": "default" } });
    expect(((await me.json()) as { data: { email: string } }).data.email).toBe("dev-start@example.com");
  });

  it("ran the simulator on GOOGLE_SIM_PORT, a real OpenID provider", async () => {
    const discovery = await fetch(`http://127.0.0.1:${googleSimPort}/.well-known/openid-configuration`);
    expect(((await discovery.json()) as { issuer: string }).issuer).toBe(`http://127.0.0.1:${googleSimPort}`);
  });
});
