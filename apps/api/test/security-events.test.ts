/**
 * Security events through HTTP (docs/security-events.md): each kind recorded by the change it
 * reports, listed newest first for the customer (GET /api/v1/auth/me/security-events) and for the
 * operator (GET /api/v1/admin/audit); failed sign-ins of unknown emails leave no row.
 */
import { describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { adminKey, RestClient, registerUser, uniqueEmail, type TestApp } from "./support/app.js";
import { testClock } from "./support/clock.js";
import { skipThisTarget } from "./support/database.js";
import { enrolledUser, otpToken, totpClock } from "./support/two-factor.js";

const clock = totpClock();
it.override({ appOptions: { now: clock.now } });

interface EventView {
  id: string;
  type: string;
  created_at: string;
  ip: string | null;
  user_agent: string | null;
  details: Record<string, unknown>;
}

describe.skipIf(skipThisTarget)("security events", () => {
  let t: TestApp;
  let client: RestClient;
  it.beforeAll(({ app }) => {
    t = app;
    client = new RestClient(t.url);
  });

  async function eventsOf(token: string, query = ""): Promise<EventView[]> {
    const listed = await client.get(`/api/v1/auth/me/security-events${query}`, token);
    expect(listed.status).toBe(200);
    return listed.body.data.security_events;
  }

  const audit = (query: string, key = adminKey) => client.request("GET", `/api/v1/admin/audit${query}`, { headers: { authorization: `Bearer ${key}` } });

  it("records sign-ins, a failed password, a password change and a revocation, newest first, with ip and user agent", async () => {
    const user = await registerUser(client);
    const wrong = await client.request("POST", "/api/v1/auth/login", { body: { email: user.email, password: "not the password" }, headers: { "user-agent": "Guesser/1.0" } });
    expect(wrong.status).toBe(401);
    clock.advance(1);
    const login = await client.request("POST", "/api/v1/auth/login", { body: { email: user.email, password: user.password }, headers: { "user-agent": "Phone/2.0" } });
    expect(login.status).toBe(200);
    const token = login.body.data.access_token as string;
    clock.advance(1);
    expect((await client.put("/api/v1/auth/me/password", { current_password: user.password, new_password: "a new long passphrase" }, token)).status).toBe(200);

    const events = await eventsOf(token);
    expect(events.map((e) => e.type)).toEqual(["password.changed", "sign_in.succeeded", "sign_in.failed"]);
    expect(events[2]).toEqual({
      id: expect.any(String),
      type: "sign_in.failed",
      created_at: expect.any(String),
      ip: "127.0.0.1",
      user_agent: "Guesser/1.0",
      details: { reason: "invalid_password" },
    });
    expect(events[1]).toMatchObject({ user_agent: "Phone/2.0", details: { method: "password", session_id: expect.any(String) } });
    expect(events[0]!.details).toEqual({ via: "change" });
  });

  it("records two-factor on, a recovery code used, a wrong code and two-factor off", async () => {
    const user = await enrolledUser(t.url, clock);
    clock.advance(1);
    const wrongCode = await client.post("/api/v1/auth/otp/validate", { otp_token: await otpToken(t.url, user), code: "000000" });
    expect(wrongCode.status).toBe(401);
    clock.advance(1);
    const recovered = await client.post("/api/v1/auth/otp/validate", { otp_token: await otpToken(t.url, user), code: user.recoveryCodes[0] });
    expect(recovered.status).toBe(200);
    clock.advance(1);
    const token = recovered.body.data.access_token as string;
    expect((await client.request("DELETE", "/api/v1/auth/otp/disable", { body: { password: user.password }, token })).status).toBe(200);
    const events = await eventsOf(token);
    const types = events.map((e) => e.type);
    expect(types).toEqual(["otp.disabled", expect.any(String), expect.any(String), "sign_in.failed", "otp.enabled"]);
    // The recovery code and the sign-in it completed share one instant, so their order is not fixed.
    expect(types.slice(1, 3).sort()).toEqual(["recovery_code.used", "sign_in.succeeded"]);
    expect(events.find((e) => e.type === "sign_in.succeeded")!.details).toMatchObject({ method: "otp" });
    expect(events[3]!.details).toEqual({ reason: "invalid_otp" });
  });

  it("records nothing for a failed sign-in with an unknown email", async () => {
    const before = await t.deps.db.unscoped("test").securityEvent.count();
    for (let i = 0; i < 3; i++) {
      expect((await client.post("/api/v1/auth/login", { email: uniqueEmail("nobody"), password: "whatever it is" })).status).toBe(401);
    }
    expect(await t.deps.db.unscoped("test").securityEvent.count()).toBe(before);
  });

  it("pages the customer's events with limit and next_cursor; a bad cursor is 422", async () => {
    const user = await registerUser(client);
    for (let i = 0; i < 3; i++) {
      clock.advance(1);
      await client.post("/api/v1/auth/login", { email: user.email, password: user.password });
    }
    const first = await client.get("/api/v1/auth/me/security-events?limit=2", user.accessToken);
    expect(first.body.data.security_events).toHaveLength(2);
    const rest = await client.get(`/api/v1/auth/me/security-events?limit=2&cursor=${first.body.data.next_cursor}`, user.accessToken);
    expect(rest.body.data).toEqual({ security_events: [expect.objectContaining({ type: "sign_in.succeeded" })], next_cursor: null });
    const ids = [...first.body.data.security_events, ...rest.body.data.security_events].map((e: EventView) => e.id);
    expect(new Set(ids).size).toBe(3);
    expect((await client.get("/api/v1/auth/me/security-events?cursor=zzz", user.accessToken)).status).toBe(422);
    expect((await client.get("/api/v1/auth/me/security-events?limit=101", user.accessToken)).status).toBe(422);
  });

  it("the operator's audit lists events with their tenant and user, filtered by tenant and paged", async () => {
    const user = await registerUser(client);
    clock.advance(1);
    await client.post("/api/v1/auth/login", { email: user.email, password: user.password });
    clock.advance(1);
    await client.post("/api/v1/auth/login", { email: user.email, password: "wrong password here" });
    const page = await audit("?tenant=default&limit=1");
    expect(page.status).toBe(200);
    expect(page.body.data.security_events).toEqual([
      { id: expect.any(String), type: "sign_in.failed", created_at: expect.any(String), ip: "127.0.0.1", user_agent: "node", details: { reason: "invalid_password" }, tenant_id: "default", user_id: user.id },
    ]);
    expect(page.body.data.next_cursor).toEqual(expect.any(String));
    const next = await audit(`?tenant=default&limit=1&cursor=${page.body.data.next_cursor}`);
    expect(next.body.data.security_events[0].id).not.toBe(page.body.data.security_events[0].id);
    expect((await audit("?limit=5")).body.data.security_events).toHaveLength(5);
  });

  it("events older than RETENTION_SECURITY_EVENTS_DAYS are pruned, younger ones stay", async ({ launch }) => {
    const own = testClock();
    const app = await launch.app({ RETENTION_SECURITY_EVENTS_DAYS: "10" }, { now: own.now });
    const rest = new RestClient(app.url);
    const user = await registerUser(rest);
    const guess = () => rest.post("/api/v1/auth/login", { email: user.email, password: "a wrong password" });
    await guess();
    own.advance(5 * 86_400);
    const younger = own.now().toISOString();
    await guess();
    own.advance(5 * 86_400 - 1);
    expect((await app.retention.runOnce()).security_events).toBe(0);
    own.advance(2);
    expect((await app.retention.runOnce()).security_events).toBe(1);
    const left = await app.deps.db.unscoped("test").securityEvent.findMany({ where: { userId: user.id } });
    expect(left.map((e) => e.createdAt.toISOString())).toEqual([younger]);
  });

  it("the audit needs ADMIN_API_KEY", async () => {
    const user = await registerUser(client);
    const none = await client.get("/api/v1/admin/audit");
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe("AUTH_REQUIRED");
    expect((await audit("", "wrong-key")).body.error.code).toBe("INVALID_TOKEN");
    const customer = await client.get("/api/v1/admin/audit", user.accessToken);
    expect(customer.status).toBe(401);
    expect((await audit("?tenant=NOT A TENANT")).status).toBe(422);
  });
});
