/** GET/PUT /me and PUT /me/password, token/tenant checks (docs/tenants.md), JWKS verification. */
import jwt from "jsonwebtoken";
import { createPublicKey } from "node:crypto";
import { describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { adminKey, registerUser, RestClient, type TestApp } from "./support/app.js";
import { testClock } from "./support/clock.js";
import { skipThisTarget } from "./support/database.js";

const clock = testClock();
it.override({ appOptions: { now: clock.now } });

describe.skipIf(skipThisTarget)("profile API", () => {
  let t: TestApp;
  it.beforeAll(async ({ app }) => {
    t = app;
    const created = await new RestClient(t.url).request("POST", "/api/v1/admin/tenants", {
      body: { id: "second-shop", name: "Second Shop" },
      headers: { authorization: `Bearer ${adminKey}` },
    });
    expect(created.status).toBe(200);
  });

  it("GET /me returns exactly the documented fields", async () => {
    const c = new RestClient(t.url);
    const user = await registerUser(c, { phone: "+254 712 000 111" });
    const res = await c.get("/api/v1/auth/me", user.accessToken);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: {
        id: user.id,
        name: user.name,
        email: user.email,
        phone: "254712000111",
        phone_verified: false,
        avatar_url: null,
        email_verified: false,
        otp_enabled: false,
        role: null,
        preferences: {},
        identities: [],
      },
    });
  });

  it("needs a bearer token: 401 AUTH_REQUIRED without, 401 INVALID_TOKEN for a bad, expired or tampered one", async () => {
    const c = new RestClient(t.url);
    const user = await registerUser(c);
    expect((await c.get("/api/v1/auth/me")).body.error.code).toBe("AUTH_REQUIRED");
    expect((await c.get("/api/v1/auth/me")).status).toBe(401);
    const garbage = await c.get("/api/v1/auth/me", "not.a.jwt");
    expect(garbage.status).toBe(401);
    expect(garbage.body.error.code).toBe("INVALID_TOKEN");

    const [header, payload] = user.accessToken.split(".");
    const none = `${Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })).toString("base64url")}.${payload}.`;
    expect((await c.get("/api/v1/auth/me", none)).body.error.code).toBe("INVALID_TOKEN");
    const claims = JSON.parse(Buffer.from(payload!, "base64url").toString());
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, role: "admin" })).toString("base64url")}.${user.accessToken.split(".")[2]}`;
    expect((await c.get("/api/v1/auth/me", forged)).body.error.code).toBe("INVALID_TOKEN");

    clock.advance(16 * 60);
    const expired = await c.get("/api/v1/auth/me", user.accessToken);
    expect(expired.status).toBe(401);
    expect(expired.body.error.code).toBe("INVALID_TOKEN");
  });

  it("refuses a token used with another tenant's X-Tenant-ID (401 INVALID_TOKEN)", async () => {
    const c = new RestClient(t.url);
    const user = await registerUser(c);
    const other = new RestClient(t.url, "second-shop");
    const res = await other.get("/api/v1/auth/me", user.accessToken);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("INVALID_TOKEN");
  });

  it("keeps tenants apart: the same email registers separately in each", async () => {
    const a = new RestClient(t.url);
    const user = await registerUser(a);
    const b = new RestClient(t.url, "second-shop");
    const res = await b.post("/api/v1/auth/register", { name: "Same Email", email: user.email, password: "another-password" });
    expect(res.status).toBe(201);
    expect(res.body.data.user.id).not.toBe(user.id);
    const login = await b.post("/api/v1/auth/login", { email: user.email, password: user.password });
    expect(login.body.error.code).toBe("INVALID_CREDENTIALS");
  });

  it("issues ES256 tokens that verify against /.well-known/jwks.json with the documented claims", async () => {
    const c = new RestClient(t.url);
    const user = await registerUser(c);
    const jwks = (await (await fetch(`${t.url}/.well-known/jwks.json`)).json()) as { keys: any[] };
    const decoded = jwt.decode(user.accessToken, { complete: true })!;
    expect(decoded.header.alg).toBe("ES256");
    const jwk = jwks.keys.find((k: { kid: string }) => k.kid === decoded.header.kid);
    expect(jwk).toMatchObject({ kty: "EC", crv: "P-256", alg: "ES256", use: "sig" });
    expect(jwk.d).toBeUndefined();
    const claims = jwt.verify(user.accessToken, createPublicKey({ key: jwk, format: "jwk" }), {
      algorithms: ["ES256"],
      clockTimestamp: Math.floor(clock.now().getTime() / 1000),
    }) as jwt.JwtPayload;
    expect(claims).toMatchObject({ sub: user.id, tid: "default", role: null, iss: "mteja", aud: "mteja" });
    expect(claims.sid).toMatch(/^[0-9a-f-]{36}$/);
    expect(claims.exp! - claims.iat!).toBe(900);
  });

  it("PUT /me updates name, phone and avatar_url and returns the documented fields", async () => {
    const c = new RestClient(t.url);
    const user = await registerUser(c);
    const res = await c.put("/api/v1/auth/me", { name: " Njeri ", phone: "0110 000 111", avatar_url: "https://cdn.example.com/a.png", email: "ignored@example.com" }, user.accessToken);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ id: user.id, name: "Njeri", email: user.email, phone: "254110000111", avatar_url: "https://cdn.example.com/a.png" });
    const cleared = await c.put("/api/v1/auth/me", { phone: null, avatar_url: null }, user.accessToken);
    expect(cleared.body.data).toMatchObject({ name: "Njeri", phone: null, avatar_url: null });
    const invalid = await c.put("/api/v1/auth/me", { avatar_url: "javascript:alert(1)" }, user.accessToken);
    expect(invalid.status).toBe(422);
    expect(invalid.body.error.details[0].path).toBe("avatar_url");
  });

  it("PUT /me/password checks the current password and ends every other session", async () => {
    const c = new RestClient(t.url);
    const user = await registerUser(c);
    const otherDevice = new RestClient(t.url);
    const otherLogin = await otherDevice.post("/api/v1/auth/login", { email: user.email, password: user.password });
    const current = await c.post("/api/v1/auth/login", { email: user.email, password: user.password });
    const token = current.body.data.access_token;

    const missing = await c.put("/api/v1/auth/me/password", {}, token);
    expect(missing.status).toBe(422);
    expect(missing.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual(["current_password", "new_password"]);
    const short = await c.put("/api/v1/auth/me/password", { current_password: user.password, new_password: "short" }, token);
    expect(short.status).toBe(422);
    const wrong = await c.put("/api/v1/auth/me/password", { current_password: "not-my-password", new_password: "a-new-password" }, token);
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe("INVALID_CREDENTIALS");

    const changed = await c.put("/api/v1/auth/me/password", { current_password: user.password, new_password: "a-new-password" }, token);
    expect(changed.status).toBe(200);
    expect(changed.body).toEqual({ success: true, message: expect.any(String) });

    expect((await c.get("/api/v1/auth/me", token)).status).toBe(200);
    expect((await c.post("/api/v1/auth/refresh")).status).toBe(200);
    expect((await otherDevice.get("/api/v1/auth/me", otherLogin.body.data.access_token)).body.error.code).toBe("INVALID_TOKEN");
    expect((await otherDevice.post("/api/v1/auth/refresh")).body.error.code).toBe("INVALID_TOKEN");
    expect((await c.post("/api/v1/auth/login", { email: user.email, password: user.password })).status).toBe(401);
    expect((await c.post("/api/v1/auth/login", { email: user.email, password: "a-new-password" })).status).toBe(200);
  });

  it("sends the hardening headers on every response", async () => {
    const res = await fetch(`${t.url}/api/v1/auth/me`, { headers: { "x-tenant-id": "default" } });
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(res.headers.get("x-powered-by")).toBeNull();
  });
});
