/**
 * The dev start (`npm start` sets MTEJA_DEV_START=1): with no SMS_PROVIDER the service runs the SMS
 * simulator in-process on SMS_SIM_PORT, sends texts to it in Africa's Talking's format and receives its
 * delivery reports with a generated secret — phone sign-in works with no account anywhere.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildServer } from "../src/server.js";
import { createServices, type Services } from "../src/runtime/services.js";
import { readSettings } from "../src/settings.js";
import { RestClient } from "./support/app.js";
import { createTestDatabase, skipThisTarget, type TestDatabase } from "./support/database.js";
import { freePort } from "./support/ports.js";
import { uniquePhone } from "./support/sms.js";

const silent = { info() {}, warn() {}, error() {}, debug() {} };

describe.skipIf(skipThisTarget)("dev start with the in-process SMS simulator", () => {
  let database: TestDatabase;
  let services: Services;
  let app: FastifyInstance;
  let url: string;
  let smsSimPort: number;
  const dataDir = mkdtempSync(path.join(tmpdir(), "mteja-sms-dev-start-"));

  beforeAll(async () => {
    const port = await freePort();
    smsSimPort = await freePort();
    database = await createTestDatabase();
    const settings = readSettings({
      NODE_ENV: "development",
      LOG_LEVEL: "silent",
      MTEJA_DEV_START: "1",
      MOMO_SIMULATOR: "off",
      PORT: String(port),
      SMS_SIM_PORT: String(smsSimPort),
      DATA_DIR: dataDir,
      DATA_ENCRYPTION_KEY: "0".repeat(64),
      MOMO_RECONCILE_INTERVAL_MS: "0",
    });
    services = await createServices(settings, silent, { db: database.db });
    app = await buildServer({ settings, deps: services.deps, logger: false });
    await app.listen({ host: "127.0.0.1", port });
    url = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    await app?.close();
    await services?.close();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("texts the code to the simulator, which reports its delivery back; the code signs in", async () => {
    const phone = uniquePhone();
    const client = new RestClient(url);
    expect((await client.post("/api/v1/auth/phone/start", { phone: phone.local })).status).toBe(200);
    const received = async () => {
      const answer = await fetch(`http://127.0.0.1:${smsSimPort}/sim/messages?to=${encodeURIComponent(phone.international)}`);
      return ((await answer.json()) as { messages: { message: string; from: string }[] }).messages;
    };
    await expect.poll(async () => (await received()).length, { timeout: 10_000 }).toBe(1);
    const [text] = await received();
    expect(text!.from).toBe("MTEJA");
    const code = /\b(\d{6})\b/.exec(text!.message)![1]!;
    await expect
      .poll(async () => (await client.get(`/dev/outbox/texts?to=${encodeURIComponent(phone.international)}`)).body.data.texts[0]?.delivery_status, { timeout: 10_000 })
      .toBe("Success");
    const verify = await client.post("/api/v1/auth/phone/verify", { phone: phone.local, code });
    expect(verify.status).toBe(200);
    expect(verify.body.data.access_token).toEqual(expect.any(String));
  });
});
