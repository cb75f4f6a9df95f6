/**
 * The dev start (`npm start` sets MTEJA_DEV_START=1) with CAPTCHA_PROVIDER unset runs the CAPTCHA
 * stand-in (apps/captcha-sim) in-process and checks tokens against it, so a shop's CAPTCHA works with
 * no internet: the demo gets a token as a solved widget would (POST /demo/shop/captcha), good once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Services } from "../src/runtime/services.js";
import { adminKey, RestClient } from "./support/app.js";
import { skipThisTarget } from "./support/database.js";
import { startDevService, type DevService } from "./support/dev-start.js";
import { freePort } from "./support/ports.js";

describe.skipIf(skipThisTarget)("dev start with the in-process CAPTCHA stand-in", () => {
  let dev: DevService | undefined;
  let services: Services;
  let url: string;

  beforeAll(async () => {
    const smsSimPort = String(await freePort());
    dev = await startDevService({ MOMO_SIMULATOR: "off", SMS_SIM_PORT: smsSimPort, ADMIN_API_KEY: adminKey });
    ({ services, url } = dev);
  });
  afterAll(() => dev?.close());

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
