/**
 * The dev start (`npm start` sets MTEJA_DEV_START=1): without OIDC_GOOGLE_ISSUER the service runs the
 * Google simulator in-process on GOOGLE_SIM_PORT and gives the default shop its client, sending the
 * browser back to the demo (APP_URL): "Sign in with Google" works with no internet.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestApp } from "./support/app.js";
import { skipThisTarget } from "./support/database.js";
import { startDevService, type DevService } from "./support/dev-start.js";
import { freePort } from "./support/ports.js";
import { accessTokenFrom, finishAtCallback, throughGoogle } from "./support/google.js";

describe.skipIf(skipThisTarget)("dev start with the in-process Google simulator", () => {
  let dev: DevService | undefined;
  let url: string;
  let googleSimPort: number;

  beforeAll(async () => {
    googleSimPort = await freePort();
    dev = await startDevService((address) => ({
      MOMO_SIMULATOR: "off",
      GOOGLE_SIM_PORT: String(googleSimPort),
      PUBLIC_URL: address,
      APP_URL: `${address}/demo`,
    }));
    url = dev.url;
  });
  afterAll(() => dev?.close());

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
