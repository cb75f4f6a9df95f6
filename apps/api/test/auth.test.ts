/** Accounts over REST: register, login, refresh (rotation, reuse, grace), logout — docs/sessions.md. */
import { createHash } from "node:crypto";
import { describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { registerUser, RestClient, uniqueEmail, type TestApp } from "./support/app.js";
import { testClock } from "./support/clock.js";
import { skipThisTarget } from "./support/database.js";

const clock = testClock();
it.override({ appOptions: { now: clock.now } });

describe.skipIf(skipThisTarget)("auth API", () => {
  let t: TestApp;
  it.beforeAll(async ({ app }) => {
    t = app;
  });

  describe("POST /api/v1/auth/register", () => {
    it("creates the account, returns user + access token, sets the refresh cookie", async () => {
      const c = new RestClient(t.url);
      const email = uniqueEmail("Reg");
      const res = await c.post("/api/v1/auth/register", { name: "  Achieng Otieno ", email: `  ${email.toUpperCase()} `, password: "password123", phone: "0712 345 678" });
      expect(res.status).toBe(201);
      expect(res.body.success).toBe(true);
      expect(res.body.message).toMatch(/check your email/i);
      expect(Object.keys(res.body.data).sort()).toEqual(["access_token", "user"]);
      expect(res.body.data.user).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        name: "Achieng Otieno",
        email: email.toLowerCase(),
        phone: "254712345678",
        email_verified: false,
      });
      expect(res.body.data.access_token.split(".")).toHaveLength(3);
      expect(res.headers.get("cache-control")).toBe("no-store");
      const cookie = res.cookies.refresh_token!;
      expect(cookie.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(cookie.attributes).toContain("HttpOnly");
      expect(cookie.attributes).toContain("Secure");
      expect(cookie.attributes).toContain("SameSite=Strict");
      expect(cookie.attributes).toContain("Path=/api/v1/auth");
      const maxAge = Number(/Max-Age=(\d+)/.exec(cookie.attributes)?.[1]);
      expect(maxAge).toBeGreaterThan(29 * 24 * 3600);
      expect(maxAge).toBeLessThanOrEqual(30 * 24 * 3600);
      const body = JSON.stringify(res.body);
      expect(body).not.toContain("password");
    });

    it("answers 409 USER_EXISTS for an email already registered, whatever its case", async () => {
      const c = new RestClient(t.url);
      const user = await registerUser(c);
      const res = await c.post("/api/v1/auth/register", { name: "Other", email: user.email.toUpperCase(), password: "password123" });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ success: false, message: expect.any(String), error: { code: "USER_EXISTS" } });
    });

    it("answers 422 VALIDATION_ERROR with details for missing and invalid fields", async () => {
      const c = new RestClient(t.url);
      const missing = await c.post("/api/v1/auth/register", {});
      expect(missing.status).toBe(422);
      expect(missing.body.success).toBe(false);
      expect(missing.body.error.code).toBe("VALIDATION_ERROR");
      const paths = missing.body.error.details.map((d: { path: string }) => d.path).sort();
      expect(paths).toEqual(["email", "name", "password"]);
      for (const [body, path] of [
        [{ name: "A", email: "not-an-email", password: "password123" }, "email"],
        [{ name: "A", email: uniqueEmail(), password: "short" }, "password"],
        [{ name: "A", email: uniqueEmail(), password: "password123", phone: "12345" }, "phone"],
        [{ name: "   ", email: uniqueEmail(), password: "password123" }, "name"],
      ] as const) {
        const res = await c.post("/api/v1/auth/register", body);
        expect(res.status, JSON.stringify(body)).toBe(422);
        expect(res.body.error.details.map((d: { path: string }) => d.path)).toEqual([path]);
      }
    });

    it("ignores unknown fields", async () => {
      const res = await new RestClient(t.url).post("/api/v1/auth/register", { name: "A", email: uniqueEmail(), password: "password123", role: "admin", email_verified: true });
      expect(res.status).toBe(201);
      expect(res.body.data.user.email_verified).toBe(false);
      const me = await new RestClient(t.url).get("/api/v1/auth/me", res.body.data.access_token);
      expect(me.body.data.role).toBeNull();
    });

    it("answers 400 MALFORMED_REQUEST for bad JSON and 413 PAYLOAD_TOO_LARGE past 64 KiB", async () => {
      const c = new RestClient(t.url);
      const bad = await c.request("POST", "/api/v1/auth/register", { rawBody: "{not json", headers: { "content-type": "application/json" } });
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe("MALFORMED_REQUEST");
      const wrongType = await c.request("POST", "/api/v1/auth/register", { rawBody: "name=a", headers: { "content-type": "text/plain" } });
      expect(wrongType.status).toBe(400);
      expect(wrongType.body.error.code).toBe("MALFORMED_REQUEST");
      const big = await c.post("/api/v1/auth/register", { name: "A", email: uniqueEmail(), password: "x".repeat(70 * 1024) });
      expect(big.status).toBe(413);
      expect(big.body.error.code).toBe("PAYLOAD_TOO_LARGE");
    });

    it("requires X-Tenant-ID (400 TENANT_REQUIRED) naming an active tenant (404 TENANT_NOT_FOUND)", async () => {
      const none = await new RestClient(t.url, "").post("/api/v1/auth/register", { name: "A", email: uniqueEmail(), password: "password123" });
      expect(none.status).toBe(400);
      expect(none.body.error.code).toBe("TENANT_REQUIRED");
      const unknown = await new RestClient(t.url, "no-such-shop").post("/api/v1/auth/login", { email: uniqueEmail(), password: "password123" });
      expect(unknown.status).toBe(404);
      expect(unknown.body.error.code).toBe("TENANT_NOT_FOUND");
    });
  });

  describe("POST /api/v1/auth/login", () => {
    it("returns requires_otp false, an access token and the user, and sets the refresh cookie", async () => {
      const c = new RestClient(t.url);
      const user = await registerUser(c);
      const fresh = new RestClient(t.url);
      const res = await fresh.post("/api/v1/auth/login", { email: ` ${user.email.toUpperCase()}`, password: user.password });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        success: true,
        data: { requires_otp: false, access_token: expect.any(String), user: { id: user.id, name: user.name, email: user.email, role: null } },
      });
      expect(res.cookies.refresh_token?.attributes).toContain("HttpOnly");
      expect(res.headers.get("cache-control")).toBe("no-store");
    });

    it("gives the same 401 INVALID_CREDENTIALS body for a wrong password and an unknown email", async () => {
      const c = new RestClient(t.url);
      const user = await registerUser(c);
      const wrong = await c.post("/api/v1/auth/login", { email: user.email, password: "wrong-password" });
      const unknown = await c.post("/api/v1/auth/login", { email: uniqueEmail("nobody"), password: "wrong-password" });
      expect(wrong.status).toBe(401);
      expect(unknown.status).toBe(401);
      expect(wrong.body).toEqual(unknown.body);
      expect(wrong.body.error.code).toBe("INVALID_CREDENTIALS");
      expect(wrong.cookies.refresh_token).toBeUndefined();
    });

    it("spends the same password-hashing time on an unknown email as on a wrong password", async () => {
      const c = new RestClient(t.url);
      const user = await registerUser(c);
      const time = async (email: string) => {
        const started = performance.now();
        await c.post("/api/v1/auth/login", { email, password: "wrong-password" });
        return performance.now() - started;
      };
      const wrong: number[] = [];
      const unknown: number[] = [];
      for (let i = 0; i < 7; i++) {
        wrong.push(await time(user.email));
        unknown.push(await time(uniqueEmail("ghost")));
      }
      // Without the decoy hash an unknown email answers in a few ms, an argon2id verify takes tens. The
      // fastest of each is compared: a busy machine (another suite beside this one) only adds time, so
      // the fastest is the nearest to what each path itself costs (medians failed on a loaded CI core).
      expect(Math.min(...unknown)).toBeGreaterThan(Math.min(...wrong) * 0.5);
    });
  });

  describe("refresh, rotation and reuse", () => {
    it("answers 401 AUTH_REQUIRED without a cookie and 401 INVALID_TOKEN for an unknown one", async () => {
      const c = new RestClient(t.url);
      const none = await c.post("/api/v1/auth/refresh");
      expect(none.status).toBe(401);
      expect(none.body.error.code).toBe("AUTH_REQUIRED");
      c.cookie = "not-a-real-token";
      const bad = await c.post("/api/v1/auth/refresh");
      expect(bad.status).toBe(401);
      expect(bad.body.error.code).toBe("INVALID_TOKEN");
    });

    it("rotates the cookie and issues a working access token", async () => {
      const c = new RestClient(t.url);
      await registerUser(c);
      const before = c.cookie;
      const res = await c.post("/api/v1/auth/refresh");
      expect(res.status).toBe(200);
      expect(Object.keys(res.body.data)).toEqual(["access_token"]);
      expect(c.cookie).toBeDefined();
      expect(c.cookie).not.toBe(before);
      const me = await c.get("/api/v1/auth/me", res.body.data.access_token);
      expect(me.status).toBe(200);
    });

    it("answers again within the 10 s grace window (two tabs), and revokes the session on later reuse", async () => {
      const c = new RestClient(t.url);
      const user = await registerUser(c);
      const original = c.cookie!;
      const first = await c.post("/api/v1/auth/refresh");
      expect(first.status).toBe(200);
      const rotated = c.cookie!;

      const otherTab = new RestClient(t.url);
      otherTab.cookie = original;
      clock.advance(5);
      const withinGrace = await otherTab.post("/api/v1/auth/refresh");
      expect(withinGrace.status).toBe(200);
      expect(otherTab.cookie).toBe(rotated);

      clock.advance(30);
      const thief = new RestClient(t.url);
      thief.cookie = original;
      const reuse = await thief.post("/api/v1/auth/refresh");
      expect(reuse.status).toBe(401);
      expect(reuse.body.error.code).toBe("INVALID_TOKEN");
      expect(reuse.cookies.refresh_token?.value).toBe("");

      // The whole session is gone: the newest cookie and the access tokens of the session fail too.
      const victim = new RestClient(t.url);
      victim.cookie = otherTab.cookie ?? rotated;
      expect((await victim.post("/api/v1/auth/refresh")).body.error.code).toBe("INVALID_TOKEN");
      expect((await c.get("/api/v1/auth/me", first.body.data.access_token)).body.error.code).toBe("INVALID_TOKEN");
      expect((await c.get("/api/v1/auth/me", user.accessToken)).status).toBe(401);
    });

    it("gives two refreshes of one cookie at once the same new cookie, which goes on working after the window", async () => {
      const c = new RestClient(t.url);
      await registerUser(c);
      const original = c.cookie!;
      const tabs = [new RestClient(t.url), new RestClient(t.url)];
      for (const tab of tabs) tab.cookie = original;
      const answers = await Promise.all(tabs.map((tab) => tab.post("/api/v1/auth/refresh")));
      for (const answer of answers) expect(answer.status).toBe(200);
      const [kept, other] = tabs.map((tab) => tab.cookie);
      expect(kept).toBeDefined();
      expect(kept).not.toBe(original);
      expect(other).toBe(kept);
      for (const answer of answers) expect((await c.get("/api/v1/auth/me", answer.body.data.access_token)).status).toBe(200);

      // Well after the window, each returned cookie (one value) refreshes; presented twice at once, both succeed alike.
      clock.advance(60);
      const later = await Promise.all(tabs.map((tab) => tab.post("/api/v1/auth/refresh")));
      for (const answer of later) expect(answer.status).toBe(200);
      expect(tabs[1]!.cookie).toBe(tabs[0]!.cookie);
      expect(tabs[0]!.cookie).not.toBe(kept);

      // The session stays alive: the browser's cookie refreshes again after another window.
      clock.advance(60);
      const browser = new RestClient(t.url);
      browser.cookie = tabs[0]!.cookie;
      const again = await browser.post("/api/v1/auth/refresh");
      expect(again.status).toBe(200);
      expect((await c.get("/api/v1/auth/me", again.body.data.access_token)).status).toBe(200);
    });

    it("revokes the session when a rotated cookie comes back after its successor was itself rotated, even within the window", async () => {
      const c = new RestClient(t.url);
      const user = await registerUser(c);
      const original = c.cookie!;
      expect((await c.post("/api/v1/auth/refresh")).status).toBe(200);
      clock.advance(2);
      const second = await c.post("/api/v1/auth/refresh");
      expect(second.status).toBe(200);

      clock.advance(2);
      const stale = new RestClient(t.url);
      stale.cookie = original;
      const reuse = await stale.post("/api/v1/auth/refresh");
      expect(reuse.status).toBe(401);
      expect(reuse.body.error.code).toBe("INVALID_TOKEN");
      expect((await c.post("/api/v1/auth/refresh")).body.error.code).toBe("INVALID_TOKEN");
      expect((await c.get("/api/v1/auth/me", user.accessToken)).status).toBe(401);
    });

    it("stores no refresh token in clear: only hashes, and the successor of a cookie is not its hash", async () => {
      const c = new RestClient(t.url);
      const user = await registerUser(c);
      const original = c.cookie!;
      await c.post("/api/v1/auth/refresh");
      const rows = await t.deps.db.unscoped("test").refreshToken.findMany({ where: { session: { userId: user.id } } });
      expect(rows).toHaveLength(2);
      const stored = JSON.stringify(rows);
      for (const value of [original, c.cookie!]) {
        expect(stored).not.toContain(value);
        expect(rows.map((r) => r.tokenHash)).toContain(createHash("sha256").update(value).digest("hex"));
      }
    });

    it("serialises concurrent refreshes of one cookie: one session, no 500", async () => {
      const c = new RestClient(t.url);
      await registerUser(c);
      const cookie = c.cookie!;
      const results = await Promise.all(
        Array.from({ length: 5 }, () => {
          const tab = new RestClient(t.url);
          tab.cookie = cookie;
          return tab.post("/api/v1/auth/refresh");
        }),
      );
      for (const r of results) expect(r.status).toBe(200);
      expect(new Set(results.map((r) => r.cookies.refresh_token?.value)).size).toBe(1);
      const sessions = await t.deps.db.unscoped("test").refreshToken.count({ where: { rotatedAt: null, session: { user: { email: (await c.get("/api/v1/auth/me", results[0]!.body.data.access_token)).body.data.email } } } });
      expect(sessions).toBe(1);
    });

    it("expires the cookie after 30 idle days", async () => {
      const c = new RestClient(t.url);
      await registerUser(c);
      clock.advance(31 * 24 * 3600);
      const res = await c.post("/api/v1/auth/refresh");
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe("INVALID_TOKEN");
    });

    it("does not accept a refresh cookie of another tenant", async () => {
      const admin = await new RestClient(t.url).request("POST", "/api/v1/admin/tenants", {
        body: { id: "refresh-other", name: "Other shop" },
        headers: { authorization: "Bearer test-admin-key-0123456789" },
      });
      expect(admin.status).toBe(200);
      const c = new RestClient(t.url);
      await registerUser(c);
      c.tenantId = "refresh-other";
      const res = await c.post("/api/v1/auth/refresh");
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe("INVALID_TOKEN");
    });
  });

  describe("POST /api/v1/auth/logout", () => {
    it("clears the cookie and ends the session", async () => {
      const c = new RestClient(t.url);
      const user = await registerUser(c);
      const cookie = c.cookie!;
      const res = await c.request("POST", "/api/v1/auth/logout");
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, message: expect.stringMatching(/logged out/i) });
      expect(res.cookies.refresh_token?.value).toBe("");
      expect(res.cookies.refresh_token?.attributes).toMatch(/Expires=Thu, 01 Jan 1970|Max-Age=0/);
      const again = new RestClient(t.url);
      again.cookie = cookie;
      expect((await again.post("/api/v1/auth/refresh")).body.error.code).toBe("INVALID_TOKEN");
      expect((await c.get("/api/v1/auth/me", user.accessToken)).body.error.code).toBe("INVALID_TOKEN");
    });

    it("succeeds without a cookie and without a content type", async () => {
      const res = await fetch(`${t.url}/api/v1/auth/logout`, { method: "POST", headers: { "x-tenant-id": "default" } });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { success: boolean }).success).toBe(true);
    });
  });
});
