/**
 * Isolation of the devices page, the security events and the data-rights operations: nothing of
 * another customer, or of another tenant, can be listed, revoked, exported or erased.
 */
import { describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { adminKey, RestClient, registerUser, type TestApp } from "./support/app.js";
import { testClock } from "./support/clock.js";
import { skipThisTarget } from "./support/database.js";

const clock = testClock();
it.override({ appOptions: { now: clock.now } });

const address = { label: "Home", recipient_name: "Achieng Otieno", phone: "0722000111", street: "Moi Avenue", county: "mombasa" };

describe.skipIf(skipThisTarget)("devices, security events and data rights: isolation", () => {
  let t: TestApp;
  let shopA: RestClient;
  let shopB: RestClient;
  it.beforeAll(async ({ app }) => {
    t = app;
    shopA = new RestClient(t.url);
    shopB = new RestClient(t.url, "other-shop");
    const created = await new RestClient(t.url).request("POST", "/api/v1/admin/tenants", {
      body: { id: "other-shop", name: "Other Shop" },
      headers: { authorization: `Bearer ${adminKey}` },
    });
    expect(created.status).toBe(200);
  });

  it("another customer's session id is 404 and that session lives on", async () => {
    const alice = await registerUser(new RestClient(t.url));
    const bob = await registerUser(new RestClient(t.url));
    const bobSession = (await shopA.get("/api/v1/auth/sessions", bob.accessToken)).body.data.sessions[0];
    const attempt = await shopA.request("DELETE", `/api/v1/auth/sessions/${bobSession.id}`, { token: alice.accessToken });
    expect(attempt.status).toBe(404);
    expect(attempt.body.error.code).toBe("NOT_FOUND");
    expect((await shopA.get("/api/v1/auth/me", bob.accessToken)).status).toBe(200);
    // Alice's list never shows Bob's session; revoke-others touches only her own.
    expect((await shopA.get("/api/v1/auth/sessions", alice.accessToken)).body.data.sessions.map((s: { id: string }) => s.id)).not.toContain(bobSession.id);
    await shopA.post("/api/v1/auth/sessions/revoke-others", undefined, alice.accessToken);
    expect((await shopA.get("/api/v1/auth/me", bob.accessToken)).status).toBe(200);
  });

  it("a session of another tenant's customer is 404 too, and a token is refused with another tenant's header", async () => {
    const alice = await registerUser(new RestClient(t.url));
    const carol = await registerUser(new RestClient(t.url, "other-shop"));
    const carolSession = (await shopB.get("/api/v1/auth/sessions", carol.accessToken)).body.data.sessions[0];
    expect((await shopA.request("DELETE", `/api/v1/auth/sessions/${carolSession.id}`, { token: alice.accessToken })).status).toBe(404);
    expect((await shopB.get("/api/v1/auth/sessions", alice.accessToken)).status).toBe(401);
    expect((await shopB.get("/api/v1/auth/me/export", alice.accessToken)).status).toBe(401);
    expect((await shopB.get("/api/v1/auth/me/security-events", alice.accessToken)).status).toBe(401);
  });

  it("an export holds only the caller's own data", async () => {
    const alice = await registerUser(new RestClient(t.url));
    const bob = await registerUser(new RestClient(t.url));
    expect((await shopA.post("/api/v1/addresses", address, bob.accessToken)).status).toBe(201);
    await shopA.post("/api/v1/auth/login", { email: bob.email, password: "a wrong password" });
    const exported = (await shopA.get("/api/v1/auth/me/export", alice.accessToken)).body.data;
    expect(exported.profile.id).toBe(alice.id);
    expect(exported.addresses).toEqual([]);
    expect(exported.payments).toEqual([]);
    expect(exported.sessions).toHaveLength(1);
    expect(exported.security_events.map((e: { type: string }) => e.type)).toEqual(["account.exported"]);
    const events = (await shopA.get("/api/v1/auth/me/security-events", alice.accessToken)).body.data.security_events;
    expect(events.map((e: { type: string }) => e.type)).toEqual(["account.exported"]);
  });

  it("the audit filtered by one tenant shows none of another tenant's events", async () => {
    const dave = await registerUser(new RestClient(t.url, "other-shop"));
    await shopB.post("/api/v1/auth/login", { email: dave.email, password: "a wrong password" });
    const audit = async (tenant: string) =>
      (await shopA.request("GET", `/api/v1/admin/audit?tenant=${tenant}&limit=100`, { headers: { authorization: `Bearer ${adminKey}` } })).body.data.security_events as { tenant_id: string; user_id: string }[];
    const other = await audit("other-shop");
    expect(other.map((e) => e.user_id)).toContain(dave.id);
    expect(new Set(other.map((e) => e.tenant_id))).toEqual(new Set(["other-shop"]));
    const mine = await audit("default");
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.map((e) => e.user_id)).not.toContain(dave.id);
    expect(new Set(mine.map((e) => e.tenant_id))).toEqual(new Set(["default"]));
  });

  it("erasing one's account leaves another customer with the same name and data untouched", async () => {
    const alice = await registerUser(new RestClient(t.url));
    const bob = await registerUser(new RestClient(t.url));
    expect((await shopA.post("/api/v1/addresses", address, bob.accessToken)).status).toBe(201);
    expect((await shopA.request("DELETE", "/api/v1/auth/me", { body: { password: alice.password }, token: alice.accessToken })).status).toBe(200);
    expect((await shopA.get("/api/v1/auth/me", bob.accessToken)).status).toBe(200);
    expect((await shopA.get("/api/v1/addresses", bob.accessToken)).body.data.addresses).toHaveLength(1);
  });
});
