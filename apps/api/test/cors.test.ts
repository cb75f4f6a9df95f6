/** CORS: only origins in CORS_ORIGINS (or a shop's own corsOrigins) get CORS headers, with credentials. */
import { describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { adminKey, type TestApp } from "./support/app.js";
import { skipDatabaseAgnostic } from "./support/database.js";

const shopFront = "https://shop.example.co.ke";
const otherShopFront = "https://duka.example.com";

function preflight(url: string, path: string, origin: string) {
  return fetch(url + path, {
    method: "OPTIONS",
    headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "content-type,authorization,x-tenant-id" },
  });
}

it.override({ appEnv: { CORS_ORIGINS: `${shopFront}, https://admin.example.co.ke/` } });

describe.skipIf(skipDatabaseAgnostic)("CORS", () => {
  let t: TestApp;
  it.beforeAll(async ({ app }) => {
    t = app;
    const created = await fetch(`${t.url}/api/v1/admin/tenants`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${adminKey}` },
      body: JSON.stringify({ id: "duka", name: "Duka", settings: { corsOrigins: [otherShopFront] } }),
    });
    expect(created.status).toBeLessThan(300);
  });

  it("answers a preflight from a listed origin with that origin, credentials and the API's headers", async () => {
    for (const path of ["/api/v1/auth/login", "/trpc/auth.login"]) {
      const res = await preflight(t.url, path, shopFront);
      expect(res.status, path).toBe(204);
      expect(res.headers.get("access-control-allow-origin")).toBe(shopFront);
      expect(res.headers.get("access-control-allow-credentials")).toBe("true");
      expect(res.headers.get("access-control-allow-methods")).toContain("POST");
      const allowed = res.headers.get("access-control-allow-headers")!.toLowerCase();
      for (const header of ["content-type", "authorization", "x-tenant-id"]) expect(allowed).toContain(header);
      expect(res.headers.get("vary")).toMatch(/origin/i);
    }
    // A trailing slash in the setting names the same origin.
    expect((await preflight(t.url, "/api/v1/auth/login", "https://admin.example.co.ke")).headers.get("access-control-allow-origin")).toBe("https://admin.example.co.ke");
  });

  it("gives an unlisted origin no CORS headers, on preflights and on requests", async () => {
    const evil = "https://evil.example.net";
    const res = await preflight(t.url, "/api/v1/auth/login", evil);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    expect(res.headers.get("access-control-allow-credentials")).toBeNull();
    const get = await fetch(`${t.url}/api/v1/auth/me`, { headers: { origin: evil, "x-tenant-id": "default" } });
    expect(get.status).toBe(401);
    expect(get.headers.get("access-control-allow-origin")).toBeNull();
    // Look-alikes are not the listed origin.
    for (const origin of [`${shopFront}.evil.net`, "http://shop.example.co.ke", "null"]) {
      expect((await preflight(t.url, "/api/v1/auth/login", origin)).headers.get("access-control-allow-origin"), origin).toBeNull();
    }
  });

  it("gives a request without an Origin no CORS headers, and still says its answer varies by Origin", async () => {
    for (const path of ["/api/v1/auth/me", "/trpc/profile.me"]) {
      const res = await fetch(t.url + path, { headers: { "x-tenant-id": "default" } });
      expect(res.status, path).toBe(401);
      expect(res.headers.get("access-control-allow-origin"), path).toBeNull();
      expect(res.headers.get("access-control-allow-credentials"), path).toBeNull();
      expect(res.headers.get("vary"), path).toMatch(/origin/i);
    }
    // An OPTIONS without an Origin is not a preflight: no CORS headers either.
    const options = await fetch(`${t.url}/api/v1/auth/login`, { method: "OPTIONS" });
    expect(options.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("answers a listed origin's request with CORS headers and exposes X-Request-Id", async () => {
    const res = await fetch(`${t.url}/api/v1/auth/me`, { headers: { origin: shopFront, "x-tenant-id": "default" } });
    expect(res.headers.get("access-control-allow-origin")).toBe(shopFront);
    expect(res.headers.get("access-control-allow-credentials")).toBe("true");
    expect(res.headers.get("access-control-expose-headers")).toMatch(/x-request-id/i);
    // A frontend can see that an operation is deprecated (docs/api-versioning.md).
    expect(res.headers.get("access-control-expose-headers")).toMatch(/deprecation.*sunset/i);
  });

  it("lets a shop's own corsOrigins in for that shop only", async () => {
    expect((await preflight(t.url, "/api/v1/auth/login", otherShopFront)).headers.get("access-control-allow-origin")).toBe(otherShopFront);
    const forDuka = await fetch(`${t.url}/api/v1/auth/me`, { headers: { origin: otherShopFront, "x-tenant-id": "duka" } });
    expect(forDuka.headers.get("access-control-allow-origin")).toBe(otherShopFront);
    const forDefault = await fetch(`${t.url}/api/v1/auth/me`, { headers: { origin: otherShopFront, "x-tenant-id": "default" } });
    expect(forDefault.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe.skipIf(skipDatabaseAgnostic)("CORS stays off the providers' callbacks", () => {
  it("answers Daraja's and the SMS provider's callbacks without CORS: no browser calls them", async ({ app }) => {
    for (const path of ["/api/momo/callback/stkpush?token=wrong", "/api/sms/callback/delivery?token=wrong"]) {
      const res = await fetch(app.url + path, { method: "POST", headers: { origin: shopFront, "content-type": "application/json" }, body: "{}" });
      expect(res.status, path).toBeLessThan(500);
      expect(res.headers.get("access-control-allow-origin"), path).toBeNull();
      expect(res.headers.get("access-control-allow-credentials"), path).toBeNull();
      expect(res.headers.get("vary") ?? "", path).not.toMatch(/origin/i);
    }
  });

  it("still lets a listed origin read the 404 of a path that does not exist", async ({ app }) => {
    const res = await fetch(`${app.url}/api/v1/no-such-thing`, { headers: { origin: shopFront } });
    expect(res.status).toBe(404);
    expect(res.headers.get("access-control-allow-origin")).toBe(shopFront);
    expect(res.headers.get("vary")).toMatch(/origin/i);
  });
});
