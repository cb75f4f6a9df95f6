/**
 * Dev conveniences stay on this machine (docs/operations.md#production-checklist): an unset NODE_ENV means
 * production; outside production the service listens on loopback by default; and even when it
 * listens on the network, GET /dev/outbox and the dev start's known admin key answer only direct
 * loopback connections — not the network, not requests relayed by a proxy — that name this machine in
 * their Host (not a page of another site that rebound its name to 127.0.0.1).
 */
import { request as httpRequest } from "node:http";
import { networkInterfaces } from "node:os";
import { describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { devAdminApiKey } from "../src/runtime/admin-key.js";
import { readSettings } from "../src/settings.js";
import { registerUser, RestClient, trpcClient, type TestApp } from "./support/app.js";
import { skipDatabaseAgnostic, skipThisTarget } from "./support/database.js";
import { isLocalHost } from "../src/http/loopback.js";

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

describe("a Host naming this machine", () => {
  it("is localhost, 127.0.0.1 or [::1], with any port and in any case; nothing else", () => {
    for (const host of ["localhost", "localhost:3000", "LOCALHOST:3000", "LocalHost", "127.0.0.1", "127.0.0.1:8080", "[::1]", "[::1]:3000", "[::1]:65535"]) {
      expect(isLocalHost(host), host).toBe(true);
    }
    for (const host of [undefined, "", "evil.example", "evil.example:3000", "localhost.", "localhost.:3000", "127.0.0.1.", "[::1].", "localhost.evil.example", "127.0.0.1.nip.io", "evil.localhost", "::1", "[::1]:", "localhost:", "localhost:3000:1", "localhost:abc", "127.0.0.2", "0.0.0.0:3000", "[::ffff:127.0.0.1]", " localhost", "localhost "]) {
      expect(isLocalHost(host), String(host)).toBe(false);
    }
  });
});

/** A request on a direct loopback connection with the `Host` header chosen (fetch always sends the URL's). */
function withHost(base: string, method: string, path: string, host: string, headers: Record<string, string> = {}, body?: unknown): Promise<{ status: number; body: any }> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const outgoing = httpRequest(
      { host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers: { host, ...headers, ...(payload ? { "content-type": "application/json" } : {}) } },
      (response) => {
        let text = "";
        response.on("data", (chunk) => (text += chunk));
        response.on("end", () => {
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // not JSON: kept as text
          }
          resolve({ status: response.statusCode ?? 0, body: parsed });
        });
      },
    );
    outgoing.on("error", reject);
    outgoing.end(payload);
  });
}

describe.skipIf(skipDatabaseAgnostic)("dev-only routes answer only a Host naming this machine (DNS rebinding)", () => {
  let t: TestApp;
  it.beforeAll(async ({ launch }) => {
    t = await launch.app({ NODE_ENV: "development", MTEJA_DEV_START: "1", MOMO_SIMULATOR: "off", ADMIN_API_KEY: "" });
  });
  const devKey = { authorization: `Bearer ${devAdminApiKey}` };

  it("each dev route and the dev admin key answer 404 to a loopback request whose Host names another site", async () => {
    for (const host of ["evil.example", "evil.example:3000", "localhost.:3000", "127.0.0.1.nip.io"]) {
      const calls: [string, string, Record<string, string>?, unknown?][] = [
        ["GET", "/dev/outbox"],
        ["GET", "/dev/outbox/texts"],
        ["POST", "/demo/shop/orders", {}, { amount: 100 }],
        ["GET", "/demo/shop/orders/pi_unknown"],
        ["POST", "/demo/shop/phone/pay", {}, {}],
        ["GET", "/demo/shop/orders/pi_unknown/qr"],
        ["POST", "/demo/shop/phone/scan", {}, {}],
        ["GET", "/api/v1/admin/tenants", devKey],
        ["GET", "/trpc/admin.listTenants", devKey],
      ];
      for (const [method, path, headers, body] of calls) {
        const res = await withHost(t.url, method, path, host, headers, body);
        expect(res.status, `${method} ${path} Host: ${host}`).toBe(404);
        expect(JSON.stringify(res.body), `${method} ${path} Host: ${host}`).not.toMatch(/mails|texts|order_number|tenants/);
      }
    }
  });

  it("and answer with Host localhost:3000 (any port, any case, or 127.0.0.1, or [::1])", async () => {
    expect((await withHost(t.url, "GET", "/dev/outbox", "localhost:3000")).body).toMatchObject({ success: true, data: { mails: expect.any(Array) } });
    expect((await withHost(t.url, "GET", "/dev/outbox/texts", "LOCALHOST:3000")).body).toMatchObject({ success: true, data: { texts: expect.any(Array) } });
    const order = await withHost(t.url, "POST", "/demo/shop/orders", "127.0.0.1:3000", {}, { amount: 100 });
    expect(order.status, JSON.stringify(order.body)).toBe(201);
    // The demo shop runs in test mode; an order paid from the menu or by QR is live money (docs/test-mode.md).
    expect(order.body.livemode).toBe(false);
    const read = await withHost(t.url, "GET", `/demo/shop/orders/${order.body.intent_id}`, "[::1]:3000");
    expect(read.body).toMatchObject({ status: "requires_payment" });
    const menuOrder = await withHost(t.url, "POST", "/demo/shop/orders", "localhost:3000", {}, { amount: 100, pay_with: "menu" });
    expect(menuOrder.body.livemode).toBe(true);
    expect((await withHost(t.url, "GET", `/demo/shop/orders/${menuOrder.body.intent_id}`, "localhost")).body).toMatchObject({ status: "requires_payment" });
    // Answered by the route (its own validation), not the 404 of an unknown one.
    expect((await withHost(t.url, "POST", "/demo/shop/phone/pay", "localhost", {}, {})).status).toBe(422);
    expect((await withHost(t.url, "POST", "/demo/shop/phone/scan", "localhost", {}, {})).status).toBe(422);
    expect((await withHost(t.url, "GET", "/api/v1/admin/tenants", "localhost:3000", devKey)).status).toBe(200);
    expect((await withHost(t.url, "GET", "/trpc/admin.listTenants", "localhost:3000", devKey)).status).toBe(200);
  });

  it("the demo's static pages are served whatever the Host (nothing in them is private)", async () => {
    const page = await withHost(t.url, "GET", "/demo/", "evil.example");
    // Served when the demo is built; either way not refused for its Host.
    expect([200, 404]).toContain(page.status);
    expect(page.status).toBe((await withHost(t.url, "GET", "/demo/", "localhost:3000")).status);
  });
});
