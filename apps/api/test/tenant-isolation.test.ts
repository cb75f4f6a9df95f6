/**
 * Cross-tenant isolation of the account operations that now rely on the tenant-scoped client
 * (docs/tenants.md#data-scoping) rather than a tenant filter written into each query: a credential
 * of one shop presented to another changes nothing there or at home.
 */
import { describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { adminKey, registerUser, RestClient, type TestApp } from "./support/app.js";
import { skipThisTarget } from "./support/database.js";

describe.skipIf(skipThisTarget)("tenant isolation of account operations", () => {
  let t: TestApp;
  const otherShop = "isolation-other";

  it.beforeAll(async ({ app }) => {
    t = app;
    const created = await new RestClient(t.url, "").request("POST", "/api/v1/admin/tenants", {
      body: { id: otherShop, name: "Other shop" },
      headers: { authorization: `Bearer ${adminKey}` },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
  });

  it("logout at another shop with this shop's refresh cookie ends no session", async () => {
    const home = new RestClient(t.url);
    const user = await registerUser(home);
    const elsewhere = new RestClient(t.url, otherShop);
    elsewhere.cookie = home.cookie;
    expect((await elsewhere.post("/api/v1/auth/logout")).status).toBe(200);
    expect((await home.get("/api/v1/auth/me", user.accessToken)).status).toBe(200);
    const refreshed = await home.post("/api/v1/auth/refresh");
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
  });

  it("a profile change with this shop's token under another shop's X-Tenant-ID is refused and changes nothing", async () => {
    const home = new RestClient(t.url);
    const user = await registerUser(home, { name: "Home Name" });
    const elsewhere = new RestClient(t.url, otherShop);
    const changed = await elsewhere.put("/api/v1/auth/me", { name: "Changed Elsewhere" }, user.accessToken);
    expect(changed.status).toBe(401);
    expect(changed.body.error.code).toBe("INVALID_TOKEN");
    expect((await home.get("/api/v1/auth/me", user.accessToken)).body.data.name).toBe("Home Name");
  });
});
