/**
 * The dev start (`npm start` sets MTEJA_DEV_START=1) with CAPTCHA_PROVIDER unset runs the CAPTCHA
 * stand-in (apps/captcha-sim) in-process and checks tokens against it, so a shop's CAPTCHA works with
 * no internet: the demo gets a token as a solved widget would (POST /demo/shop/captcha), good once.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildServer } from "../src/server.js";
import { createServices, type Services } from "../src/runtime/services.js";
import { readSettings } from "../src/settings.js";
import { adminKey, RestClient } from "./support/app.js";
import { createTestDatabase, skipThisTarget, type TestDatabase } from "./support/database.js";
import { freePort } from "./support/ports.js";

const silent = { info() {}, warn() {}, error() {}, debug() {} };

describe.skipIf(skipThisTarget)("dev start with the in-process CAPTCHA stand-in", () => {
  let database: TestDatabase;
  let services: Services;
  let app: FastifyInstance;
  let url: string;
  const dataDir = mkdtempSync(path.join(tmpdir(), "mteja-captcha-dev-start-"));

  beforeAll(async () => {
    const port = await freePort();
    database = await createTestDatabase();
    const settings = readSettings({
      NODE_ENV: "development",
      LOG_LEVEL: "silent",
      MTEJA_DEV_START: "1",
      MOMO_SIMULATOR: "off",
      PORT: String(port),
      SMS_SIM_PORT: String(await freePort()),
      DATA_DIR: dataDir,
      DATA_ENCRYPTION_KEY: "0".repeat(64),
      ADMIN_API_KEY: adminKey,
      MOMO_RECONCILE_INTERVAL_MS: "0",
    });
    services = await createServices(settings, silent, { db: database.db });
    app = await buildServer({ settings, deps: services.deps, logger: false, captchaToken: services.captcha.dev?.issueToken });
    await app.listen({ host: "127.0.0.1", port });
    url = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    await app?.close();
    await services?.close();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("checks the stand-in's tokens: the demo's token passes once, a missing or reused one is refused", async () => {
    expect(services.captcha.verifier.enabled).toBe(true);
    const patched = await new RestClient(url, "").request("PATCH", "/api/v1/admin/tenants/default", {
      body: { settings: { captcha: { guest: "always" } } },
      headers: { authorization: `Bearer ${adminKey}` },
    });
    expect(patched.status).toBe(200);
    services.deps.tenants.invalidate("default");
    const client = new RestClient(url);
    expect((await client.post("/api/v1/auth/guest", {})).body.error.code).toBe("CAPTCHA_REQUIRED");
    const widget = await client.post("/demo/shop/captcha");
    expect(widget.status).toBe(200);
    const token = widget.body.token as string;
    const guest = (captcha: string) => client.request("POST", "/api/v1/auth/guest", { body: {}, headers: { "x-captcha-token": captcha } });
    expect((await guest(token)).status).toBe(201);
    expect((await guest(token)).body.error.code).toBe("CAPTCHA_REQUIRED");
  });
});
