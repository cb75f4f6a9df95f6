/**
 * Dev conveniences stay on this machine (docs/operations.md#production-checklist): an unset NODE_ENV means
 * production; outside production the service listens on loopback by default; and even when it
 * listens on the network, GET /dev/outbox and the dev start's known admin key answer only direct
 * loopback connections — not the network, not requests relayed by a proxy.
 */
import { networkInterfaces } from "node:os";
import { describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { devAdminApiKey } from "../src/runtime/admin-key.js";
import { readSettings } from "../src/settings.js";
import { registerUser, RestClient, trpcClient, type TestApp } from "./support/app.js";
import { skipThisTarget } from "./support/database.js";

/** An address of this machine that is not loopback: connections to it arrive from the network interface. */
const networkAddress = Object.values(networkInterfaces())
  .flat()
  .find((entry) => entry && entry.family === "IPv4" && !entry.internal)?.address;

const overNetwork = (t: TestApp) => t.url.replace("127.0.0.1", networkAddress ?? "127.0.0.1");

describe("defaults of NODE_ENV and HOST", () => {
  it("treats an unset NODE_ENV as production, listening on every interface", () => {
    const settings = readSettings({});
    expect(settings.NODE_ENV).toBe("production");
    expect(settings.HOST).toBe("0.0.0.0");
  });

  it("listens on loopback outside production unless HOST is set", () => {
    expect(readSettings({ NODE_ENV: "development" }).HOST).toBe("127.0.0.1");
    expect(readSettings({ NODE_ENV: "development", HOST: "0.0.0.0" }).HOST).toBe("0.0.0.0");
    expect(readSettings({ NODE_ENV: "production", HOST: "10.0.0.5" }).HOST).toBe("10.0.0.5");
  });
});

describe.skipIf(skipThisTarget || !networkAddress)("dev conveniences on a dev start that listens on the network", () => {
  let t: TestApp;
  it.beforeAll(async ({ launch }) => {
    t = await launch.app({ NODE_ENV: "development", MTEJA_DEV_START: "1", MOMO_SIMULATOR: "off", ADMIN_API_KEY: "" }, { host: "0.0.0.0" });
  });

  it("shows the dev outbox to loopback only: the network and proxied requests get 404", async () => {
    const user = await registerUser(new RestClient(t.url));
    const path = `/dev/outbox?to=${encodeURIComponent(user.email)}`;

    const local = await fetch(t.url + path);
    expect(local.status).toBe(200);
    expect(((await local.json()) as any).data.mails[0].text).toContain("verify-email");

    const remote = await fetch(overNetwork(t) + path);
    expect(remote.status).toBe(404);
    const body = await remote.json();
    expect(body).toMatchObject({ success: false, error: { code: "NOT_FOUND" } });
    expect(JSON.stringify(body)).not.toContain(user.email);

    expect((await fetch(t.url + path, { headers: { "x-forwarded-for": "203.0.113.7" } })).status).toBe(404);
    expect((await fetch(t.url + path, { headers: { forwarded: "for=203.0.113.7" } })).status).toBe(404);
  });

  it("accepts the known dev admin key from loopback only, over REST and tRPC", async () => {
    const headers = { authorization: `Bearer ${devAdminApiKey}` };
    const local = await new RestClient(t.url, "").request("GET", "/api/v1/admin/tenants", { headers });
    expect(local.status).toBe(200);

    const remote = await new RestClient(overNetwork(t), "").request("GET", "/api/v1/admin/tenants", { headers });
    expect(remote.status).toBe(404);
    expect(remote.body.error.code).toBe("NOT_FOUND");
    const proxied = await new RestClient(t.url, "").request("GET", "/api/v1/admin/tenants", { headers: { ...headers, "x-forwarded-for": "127.0.0.1" } });
    expect(proxied.status).toBe(404);

    expect(await trpcClient(t.url, () => headers).admin.listTenants.query()).toBeTruthy();
    await expect(trpcClient(overNetwork(t), () => headers).admin.listTenants.query()).rejects.toMatchObject({ data: { code: "NOT_FOUND" } });
  });
});

describe.skipIf(skipThisTarget || !networkAddress)("an ADMIN_API_KEY the operator chose, on the dev start", () => {
  let t: TestApp;
  const operatorKey = "operator-chosen-key-0123456789";
  it.beforeAll(async ({ launch }) => {
    t = await launch.app({ NODE_ENV: "development", MTEJA_DEV_START: "1", MOMO_SIMULATOR: "off", ADMIN_API_KEY: operatorKey }, { host: "0.0.0.0" });
  });

  it("works from the network, and the dev key does not exist", async () => {
    const admin = (key: string) => new RestClient(overNetwork(t), "").request("GET", "/api/v1/admin/tenants", { headers: { authorization: `Bearer ${key}` } });
    expect((await admin(operatorKey)).status).toBe(200);
    expect((await admin(devAdminApiKey)).status).toBe(401);
  });
});
