/**
 * The devices page through HTTP (docs/sessions.md#devices): live sessions listed with ip, user agent
 * and last use; one revoked, or every other one; a revoked session's access token fails on its very
 * next request, on this instance and on a second one on the same database.
 */
import { randomBytes } from "node:crypto";
import { describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { RestClient, registerUser, trpcClient, type TestApp } from "./support/app.js";
import { testClock } from "./support/clock.js";
import { skipThisTarget } from "./support/database.js";

const clock = testClock();
// A second instance on the same database needs the same key to read the stored signing key.
const sharedKey = { DATA_ENCRYPTION_KEY: randomBytes(32).toString("hex") };
it.override({ appEnv: sharedKey, appOptions: { now: clock.now } });

describe.skipIf(skipThisTarget)("devices: sessions listed and revoked", () => {
  let t: TestApp;
  it.beforeAll(({ app }) => {
    t = app;
  });

  /** A second device: a fresh cookie jar signing in with its own user agent. */
  async function signIn(user: { email: string; password: string }, userAgent: string) {
    const device = new RestClient(t.url);
    const login = await device.request("POST", "/api/v1/auth/login", { body: { email: user.email, password: user.password }, headers: { "user-agent": userAgent } });
    expect(login.status).toBe(200);
    return { device, token: login.body.data.access_token as string };
  }

  const sessionsOf = (client: RestClient, token: string, query = "") => client.get(`/api/v1/auth/sessions${query}`, token);

  it("lists the live sessions newest first, with ip, user agent, last use and the current one marked", async () => {
    const web = new RestClient(t.url);
    const user = await registerUser(web);
    clock.advance(5);
    const phone = await signIn(user, "Mozilla/5.0 (Linux; Android 14) Phone");

    const listed = await sessionsOf(phone.device, phone.token);
    expect(listed.status).toBe(200);
    const [newest, oldest] = listed.body.data.sessions;
    expect(listed.body).toEqual({ success: true, data: { sessions: [expect.any(Object), expect.any(Object)], next_cursor: null } });
    expect(newest).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      created_at: clock.now().toISOString(),
      last_used_at: clock.now().toISOString(),
      ip: "127.0.0.1",
      user_agent: "Mozilla/5.0 (Linux; Android 14) Phone",
      current: true,
    });
    expect(oldest).toMatchObject({ current: false, ip: "127.0.0.1", user_agent: "node" });
    // The other device sees the same two, itself marked.
    const fromWeb = await sessionsOf(web, user.accessToken);
    expect(fromWeb.body.data.sessions.map((s: { id: string; current: boolean }) => [s.id, s.current])).toEqual([
      [newest.id, false],
      [oldest.id, true],
    ]);
  });

  it("revoking one session ends its access token on the next request and refuses its refresh cookie", async () => {
    const web = new RestClient(t.url);
    const user = await registerUser(web);
    const phone = await signIn(user, "Phone");
    const phoneSession = (await sessionsOf(phone.device, phone.token)).body.data.sessions.find((s: { current: boolean }) => s.current);
    expect((await phone.device.get("/api/v1/auth/me", phone.token)).status).toBe(200);

    const revoked = await web.request("DELETE", `/api/v1/auth/sessions/${phoneSession.id}`, { token: user.accessToken });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ success: true, data: null, message: "Session ended." });

    const after = await phone.device.get("/api/v1/auth/me", phone.token);
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe("INVALID_TOKEN");
    expect((await phone.device.get("/api/v1/addresses", phone.token)).status).toBe(401);
    const refresh = await phone.device.post("/api/v1/auth/refresh");
    expect(refresh.status).toBe(401);
    expect(refresh.body.error.code).toBe("INVALID_TOKEN");
    // The revoking device goes on, and no longer lists it; revoking it again is 404.
    expect((await sessionsOf(web, user.accessToken)).body.data.sessions).toHaveLength(1);
    expect((await web.request("DELETE", `/api/v1/auth/sessions/${phoneSession.id}`, { token: user.accessToken })).status).toBe(404);
  });

  it("revoke-others ends every other session and keeps this one", async () => {
    const web = new RestClient(t.url);
    const user = await registerUser(web);
    const a = await signIn(user, "A");
    const b = await signIn(user, "B");
    const result = await a.device.post("/api/v1/auth/sessions/revoke-others", undefined, a.token);
    expect(result.status).toBe(200);
    expect(result.body).toEqual({ success: true, data: { revoked: 2 }, message: "Other sessions ended." });
    expect((await a.device.get("/api/v1/auth/me", a.token)).status).toBe(200);
    expect((await b.device.get("/api/v1/auth/me", b.token)).status).toBe(401);
    expect((await web.get("/api/v1/auth/me", user.accessToken)).status).toBe(401);
    expect((await sessionsOf(a.device, a.token)).body.data.sessions).toEqual([expect.objectContaining({ current: true, user_agent: "A" })]);
  });

  it("a revocation holds at once on a second instance of the service on the same database", async ({ launch }) => {
    const second = await launch.app(sharedKey, { database: t.database, now: clock.now });
    const web = new RestClient(t.url);
    const user = await registerUser(web);
    const phone = await signIn(user, "Phone");
    const elsewhere = new RestClient(second.url);
    expect((await elsewhere.get("/api/v1/auth/me", phone.token)).status).toBe(200);
    expect((await web.post("/api/v1/auth/sessions/revoke-others", undefined, user.accessToken)).status).toBe(200);
    const refused = await elsewhere.get("/api/v1/auth/me", phone.token);
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe("INVALID_TOKEN");
  });

  it("writes last_used_at at most once a minute per session", async () => {
    const web = new RestClient(t.url);
    const user = await registerUser(web);
    const opened = clock.now().toISOString();
    const lastUsed = async () => (await t.deps.db.unscoped("test").session.findFirstOrThrow({ where: { userId: user.id } })).lastUsedAt?.toISOString();
    expect(await lastUsed()).toBe(opened);
    clock.advance(30);
    expect((await web.get("/api/v1/addresses", user.accessToken)).status).toBe(200);
    expect(await lastUsed()).toBe(opened);
    clock.advance(31);
    const used = clock.now().toISOString();
    expect((await web.get("/api/v1/auth/me", user.accessToken)).status).toBe(200);
    expect(await lastUsed()).toBe(used);
    clock.advance(10);
    expect((await web.get("/api/v1/auth/sessions", user.accessToken)).body.data.sessions[0].last_used_at).toBe(used);
  });

  it("pages with limit and next_cursor; a bad limit or cursor is 422", async () => {
    const web = new RestClient(t.url);
    const user = await registerUser(web);
    clock.advance(1);
    await signIn(user, "second");
    clock.advance(1);
    await signIn(user, "third");
    const first = await sessionsOf(web, user.accessToken, "?limit=2");
    expect(first.body.data.sessions.map((s: { user_agent: string }) => s.user_agent)).toEqual(["third", "second"]);
    expect(first.body.data.next_cursor).toEqual(expect.any(String));
    const rest = await sessionsOf(web, user.accessToken, `?limit=2&cursor=${first.body.data.next_cursor}`);
    expect(rest.body.data).toEqual({ sessions: [expect.objectContaining({ user_agent: "node", current: true })], next_cursor: null });
    expect((await sessionsOf(web, user.accessToken, "?limit=0")).status).toBe(422);
    expect((await sessionsOf(web, user.accessToken, "?cursor=not-a-cursor")).status).toBe(422);
    expect((await web.request("DELETE", "/api/v1/auth/sessions/not-a-uuid", { token: user.accessToken })).status).toBe(422);
  });

  it("works the same over tRPC", async () => {
    const web = new RestClient(t.url);
    const user = await registerUser(web);
    const phone = await signIn(user, "Phone");
    const trpc = trpcClient(t.url, () => ({ "x-tenant-id": "default", authorization: `Bearer ${user.accessToken}` }));
    const listed = await trpc.auth.listSessions.query({});
    expect(listed.data.sessions).toHaveLength(2);
    const other = listed.data.sessions.find((s) => !s.current)!;
    expect(await trpc.auth.revokeSession.mutate({ id: other.id })).toEqual({ success: true, data: null, message: "Session ended." });
    expect((await phone.device.get("/api/v1/auth/me", phone.token)).status).toBe(401);
  });
});
