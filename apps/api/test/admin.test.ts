/** The operator's admin API (docs/tenants.md#admin-api): tenants and roles, guarded by ADMIN_API_KEY. */
import { describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { adminKey, registerUser, RestClient, type TestApp } from "./support/app.js";
import { skipThisTarget } from "./support/database.js";

describe.skipIf(skipThisTarget)("admin API", () => {
  let t: TestApp;
  const admin = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    new RestClient(t.url, "").request(method, path, { ...(body !== undefined ? { body } : {}), headers: { authorization: `Bearer ${adminKey}`, ...headers } });
  it.beforeAll(async ({ launch }) => {
    t = await launch.app();
  });

  it("creates, lists and updates tenants; a new tenant serves the auth API at once", async () => {
    const created = await admin("POST", "/api/v1/admin/tenants", { id: "duka-la-mama", name: "Duka la Mama", settings: { displayName: "Mama's Duka" } });
    expect(created.status).toBe(200);
    expect(created.body.data.tenant).toMatchObject({ id: "duka-la-mama", name: "Duka la Mama", active: true, settings: { displayName: "Mama's Duka" } });
    const dup = await admin("POST", "/api/v1/admin/tenants", { id: "duka-la-mama", name: "Again" });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe("TENANT_EXISTS");
    const badId = await admin("POST", "/api/v1/admin/tenants", { id: "Bad Id!", name: "x" });
    expect(badId.status).toBe(422);
    expect(badId.body.error.details[0].path).toBe("id");

    const list = await admin("GET", "/api/v1/admin/tenants");
    expect(list.body.data.tenants.map((x: { id: string }) => x.id)).toEqual(expect.arrayContaining(["default", "duka-la-mama"]));

    const shop = new RestClient(t.url, "duka-la-mama");
    expect((await shop.post("/api/v1/auth/register", { name: "A", email: "a@duka.example", password: "password123" })).status).toBe(201);

    const deactivated = await admin("PATCH", "/api/v1/admin/tenants/duka-la-mama", { active: false });
    expect(deactivated.body.data.tenant.active).toBe(false);
    const refused = await shop.post("/api/v1/auth/login", { email: "a@duka.example", password: "password123" });
    expect(refused.status).toBe(404);
    expect(refused.body.error.code).toBe("TENANT_NOT_FOUND");
    expect((await admin("PATCH", "/api/v1/admin/tenants/no-such-shop", { name: "x" })).status).toBe(404);
  });

  it("rejects a missing (401 AUTH_REQUIRED) or wrong (401 INVALID_TOKEN) key", async () => {
    const none = await new RestClient(t.url, "").request("GET", "/api/v1/admin/tenants");
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe("AUTH_REQUIRED");
    const wrong = await new RestClient(t.url, "").request("GET", "/api/v1/admin/tenants", { headers: { authorization: "Bearer wrong-key-wrong-key" } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe("INVALID_TOKEN");
  });

  it("sets a user's role within the tenant named by X-Tenant-ID", async () => {
    const c = new RestClient(t.url);
    const user = await registerUser(c);
    const noTenant = await admin("PATCH", `/api/v1/admin/users/${user.id}`, { role: "admin" });
    expect(noTenant.status).toBe(400);
    expect(noTenant.body.error.code).toBe("TENANT_REQUIRED");
    const otherTenant = await admin("POST", "/api/v1/admin/tenants", { id: "role-other", name: "Other" });
    expect(otherTenant.status).toBe(200);
    const wrongTenant = await admin("PATCH", `/api/v1/admin/users/${user.id}`, { role: "admin" }, { "x-tenant-id": "role-other" });
    expect(wrongTenant.status).toBe(404);
    const badRole = await admin("PATCH", `/api/v1/admin/users/${user.id}`, { role: "superuser" }, { "x-tenant-id": "default" });
    expect(badRole.status).toBe(422);
    const promoted = await admin("PATCH", `/api/v1/admin/users/${user.id}`, { role: "admin" }, { "x-tenant-id": "default" });
    expect(promoted.status).toBe(200);
    expect(promoted.body.data.user).toEqual({ id: user.id, email: user.email, role: "admin" });
    const login = await c.post("/api/v1/auth/login", { email: user.email, password: user.password });
    expect(login.body.data.user.role).toBe("admin");
    expect((await admin("PATCH", `/api/v1/admin/users/${user.id}`, { role: null }, { "x-tenant-id": "default" })).body.data.user.role).toBeNull();
  });

  it("ends every session of the user when the role changes (like a password change); setting the same role again ends none", async () => {
    const c = new RestClient(t.url);
    const user = await registerUser(c);
    const setRole = (role: string | null) => admin("PATCH", `/api/v1/admin/users/${user.id}`, { role }, { "x-tenant-id": "default" });
    const login = async () => {
      const client = new RestClient(t.url);
      const res = await client.post("/api/v1/auth/login", { email: user.email, password: user.password });
      return { client, token: res.body.data.access_token as string };
    };

    expect((await setRole("admin")).status).toBe(200);
    // The customer session from registration is over: its access token and its refresh cookie.
    const stale = await c.get("/api/v1/auth/me", user.accessToken);
    expect(stale.status).toBe(401);
    expect(stale.body.error.code).toBe("INVALID_TOKEN");
    expect((await c.post("/api/v1/auth/refresh")).body.error.code).toBe("INVALID_TOKEN");

    const asAdmin = await login();
    expect((await setRole("admin")).status).toBe(200);
    expect((await asAdmin.client.get("/api/v1/auth/me", asAdmin.token)).status).toBe(200);

    expect((await setRole(null)).status).toBe(200);
    const demoted = await asAdmin.client.get("/api/v1/auth/me", asAdmin.token);
    expect(demoted.status).toBe(401);
    expect(demoted.body.error.code).toBe("INVALID_TOKEN");
    expect((await asAdmin.client.post("/api/v1/auth/refresh")).body.error.code).toBe("INVALID_TOKEN");
    const again = await login();
    expect((await again.client.get("/api/v1/auth/me", again.token)).body.data.role).toBeNull();
  });
});

describe.skipIf(skipThisTarget)("admin API without ADMIN_API_KEY", () => {
  let t: TestApp;
  it.beforeAll(async ({ launch }) => {
    t = await launch.app({ ADMIN_API_KEY: "" });
  });

  it("does not exist (404)", async () => {
    const res = await new RestClient(t.url, "").request("GET", "/api/v1/admin/tenants", { headers: { authorization: "Bearer anything-at-all-here" } });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("NOT_FOUND");
  });
});
