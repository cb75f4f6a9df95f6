/**
 * Bad input never reaches the database or the stack (docs/errors.md#input-rules): JSON nested
 * too deep and bodies that are not objects are 400 MALFORMED_REQUEST on REST and tRPC; control
 * characters in any string (body, query string, path) are 422 VALIDATION_ERROR naming the field, with
 * tab and newline allowed in free text only; list cursors and dates that do not parse or are out of
 * range are 422. Runs on both databases: PostgreSQL refuses NUL in text (22021), PGlite does too.
 */
import { describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { registerUser, RestClient, type TestApp } from "./support/app.js";
import { skipDatabaseAgnostic } from "./support/database.js";
import { postCallback, type DarajaApp } from "./support/daraja.js";

const address = { label: "Home", recipient_name: "Wanjiku Kamau", phone: "0712345678", street: "Moi Avenue 1", county: "nairobi" };

function nested(depth: number, leaf = "1"): string {
  return "[".repeat(depth) + leaf + "]".repeat(depth);
}

function expectError(res: { status: number; body: any }, status: number, code: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toMatchObject({ success: false, message: expect.any(String), error: { code } });
}

function expectFieldError(res: { status: number; body: any }, field: string) {
  expectError(res, 422, "VALIDATION_ERROR");
  expect(res.body.error.details.map((detail: { path: string }) => detail.path)).toContain(field);
}

async function postTrpc(url: string, procedure: string, rawBody: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${url}/trpc/${procedure}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-tenant-id": "default", ...headers },
    body: rawBody,
  });
  const body = (await response.json()) as any;
  return { status: response.status, body: body.error ?? body };
}

describe.skipIf(skipDatabaseAgnostic)("bad input", () => {
  let t: TestApp;
  let c: RestClient;
  let token: string;
  it.beforeAll(async ({ launch }) => {
    t = await launch.app({ RATE_LIMITS: "off" });
    c = new RestClient(t.url);
    token = (await registerUser(c)).accessToken;
  });

  describe("JSON nesting", () => {
    it("a body nested a few thousand levels is 400 MALFORMED_REQUEST on REST and tRPC, not a stack overflow", async () => {
      const deep = `{"email":"a@example.com","password":"x","extra":${nested(5000)}}`;
      expectError(await c.request("POST", "/api/v1/auth/login", { rawBody: deep, headers: { "content-type": "application/json" } }), 400, "MALFORMED_REQUEST");
      const trpc = await postTrpc(t.url, "auth.login", deep);
      expect(trpc.status).toBe(400);
      expect(trpc.body.error.code).toBe("MALFORMED_REQUEST");
      expect(trpc.body.data.code).toBe("BAD_REQUEST");
    });

    it("32 levels are accepted; 33 are not (brackets inside strings do not count)", async () => {
      const body = (extraDepth: number) =>
        `{"email":"nobody@example.com","password":"[[[[{{{{","extra":${nested(extraDepth)}}`;
      const headers = { "content-type": "application/json" };
      const ok = await c.request("POST", "/api/v1/auth/login", { rawBody: body(31), headers });
      expectError(ok, 401, "INVALID_CREDENTIALS");
      expectError(await c.request("POST", "/api/v1/auth/login", { rawBody: body(32), headers }), 400, "MALFORMED_REQUEST");
    });
  });

  describe("bodies that are not objects", () => {
    for (const raw of ["[]", "null", '"text"', "42", "true"]) {
      it(`PUT /me with ${raw} is 400 MALFORMED_REQUEST (REST and tRPC)`, async () => {
        const headers = { "content-type": "application/json" };
        expectError(await c.request("PUT", "/api/v1/auth/me", { rawBody: raw, token, headers }), 400, "MALFORMED_REQUEST");
        const trpc = await postTrpc(t.url, "profile.updateMe", raw, { authorization: `Bearer ${token}` });
        expect(trpc.status).toBe(400);
        expect(trpc.body.error.code).toBe("MALFORMED_REQUEST");
      });
    }

    it("a __proto__ key, however escaped, is 400 MALFORMED_REQUEST on REST and on tRPC alike", async () => {
      for (const raw of ['{"name":"x","__proto__":{"role":"admin"}}', '{"name":"x","\\u005f_proto__":{"role":"admin"}}', '{"name":"x","a":[{"__proto__":1}]}']) {
        expectError(await c.request("PUT", "/api/v1/auth/me", { rawBody: raw, token, headers: { "content-type": "application/json" } }), 400, "MALFORMED_REQUEST");
        const trpc = await postTrpc(t.url, "profile.updateMe", raw, { authorization: `Bearer ${token}` });
        expect(trpc.status).toBe(400);
        expect(trpc.body.error.code).toBe("MALFORMED_REQUEST");
      }
      const named = await c.put("/api/v1/auth/me", { name: "__proto__" }, token);
      expect(named.status).toBe(200);
    });

    it("body-less POSTs are still accepted with or without a content type", async () => {
      const client = new RestClient(t.url);
      await registerUser(client);
      const refreshed = await client.request("POST", "/api/v1/auth/refresh");
      expect(refreshed.status).toBe(200);
      const logout = await client.request("POST", "/api/v1/auth/logout", { rawBody: "", headers: { "content-type": "application/json" } });
      expect(logout.status).toBe(200);
    });
  });

  describe("control characters", () => {
    it("a NUL byte in register's name is 422 naming the field, not a database error", async () => {
      const res = await c.post("/api/v1/auth/register", { name: "Wanjiku\u0000Kamau", email: `nul-${Date.now()}@example.com`, password: "correct horse battery" });
      expectFieldError(res, "name");
    });

    it("every control character is refused in a one-line field, on REST and tRPC", async () => {
      for (const char of ["\u0001", "\u0008", "\t", "\n", "\r", "\u001b", "\u001f", "\u007f"]) {
        expectFieldError(await c.put("/api/v1/auth/me", { name: `Wanjiku${char}Kamau` }, token), "name");
      }
      const trpc = await postTrpc(t.url, "profile.updateMe", JSON.stringify({ name: "a\u0000b" }), { authorization: `Bearer ${token}` });
      expect(trpc.status).toBe(422);
      expect(trpc.body.error.details.map((detail: { path: string }) => detail.path)).toContain("name");
    });

    it("a NUL byte in a URL or a password is refused like any other string", async () => {
      expectFieldError(await c.put("/api/v1/auth/me", { avatar_url: "https://example.com/a\u0000.png" }, token), "avatar_url");
      expectFieldError(await c.post("/api/v1/auth/login", { email: "a@example.com", password: "pass\u0000word" }), "password");
    });

    it("the landmark (free text) takes tab and newline but no other control character", async () => {
      const created = await c.post("/api/v1/addresses", { ...address, landmark: "Blue gate,\nthen\tleft" }, token);
      expect(created.status).toBe(201);
      expect(created.body.data.address.landmark).toBe("Blue gate,\nthen\tleft");
      expectFieldError(await c.post("/api/v1/addresses", { ...address, landmark: "Blue\u0000gate" }, token), "landmark");
      expectFieldError(await c.post("/api/v1/addresses", { ...address, street: "Moi\nAvenue" }, token), "street");
    });

    it("in a query-string parameter: 422 naming it", async () => {
      expectFieldError(await c.get("/api/momo/payments?cursor=%00", token), "cursor");
      expectFieldError(await c.get("/api/momo/payments?from=2026-01-01%0A", token), "from");
      expectFieldError(await c.get("/api/momo/payments?status=%1B", token), "status");
    });

    it("a path whose escapes do not decode is 400 MALFORMED_REQUEST in the envelope; such a query value is only invalid", async () => {
      expectError(await c.get("/api/v1/addresses/%ZZ", token), 400, "MALFORMED_REQUEST");
      expectFieldError(await c.get("/api/momo/payments?cursor=%E0%A4%A", token), "cursor");
    });

    it("a URL too long for Node's HTTP parser still gets the envelope", async () => {
      expectError(await c.get(`/api/momo/payments?cursor=${"x".repeat(20_000)}`, token), 431, "MALFORMED_REQUEST");
    });

    it("path parameters arrive still percent-encoded, so an escaped control character is only an unknown id", async () => {
      expectError(await c.get("/api/v1/addresses/abc%00def", token), 404, "NOT_FOUND");
      expectError(await c.get("/api/momo/payments/ws_CO%01x", token), 404, "NOT_FOUND");
    });
  });

  describe("list parameters", () => {
    const cursor = (text: string) => Buffer.from(text).toString("base64url");

    for (const [name, text] of [
      ["a date before PostgreSQL's range", "-271821-04-20T00:00:00.000Z|8c1d2b1e-4f2a-4c3e-9a7b-1d2e3f4a5b6c"],
      ["a date past year 9999", "+275760-09-13T00:00:00.000Z|8c1d2b1e-4f2a-4c3e-9a7b-1d2e3f4a5b6c"],
      ["an id made of hyphens", `2026-01-01T00:00:00.000Z|${"-".repeat(36)}`],
      ["an id that is not a UUID", "2026-01-01T00:00:00.000Z|zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz"],
    ] as const) {
      it(`a cursor holding ${name} is 422 naming cursor`, async () => {
        expectFieldError(await c.get(`/api/momo/payments?cursor=${cursor(text)}`, token), "cursor");
      });
    }

    it("limit and dates that do not parse or are out of range are 422", async () => {
      expectFieldError(await c.get("/api/momo/payments?limit=1e400", token), "limit");
      expectFieldError(await c.get("/api/momo/payments?limit=0", token), "limit");
      expectFieldError(await c.get("/api/momo/payments?limit=abc", token), "limit");
      expectFieldError(await c.get("/api/momo/payments?from=2026-13-45", token), "from");
      expectFieldError(await c.get("/api/momo/payments?to=yesterday", token), "to");
      const valid = await c.get(`/api/momo/payments?from=2026-01-01&limit=5&cursor=${cursor("2026-01-01T00:00:00.000Z|8c1d2b1e-4f2a-4c3e-9a7b-1d2e3f4a5b6c")}`, token);
      expect(valid.status).toBe(200);
    });
  });
});

describe.skipIf(skipDatabaseAgnostic)("bad input: Daraja callbacks holding NUL", () => {
  let t: DarajaApp;
  // Daraja is never called here: only callbacks are posted.
  it.beforeAll(async ({ launch }) => {
    t = await launch.momo({ darajaUrl: "http://127.0.0.1:9" });
  });

  const stkCallback = (checkoutRequestId: string) =>
    JSON.stringify({ Body: { stkCallback: { MerchantRequestID: "m-1", CheckoutRequestID: checkoutRequestId, ResultCode: 1032, ResultDesc: "Request cancelled by user" } } });

  async function lastStored() {
    return t.deps.db.unscoped("test").darajaCallback.findFirstOrThrow({ orderBy: { receivedAt: "desc" } });
  }

  it("without the token: 403 FORBIDDEN, stored for audit with the NUL shown as U+FFFD", async () => {
    const answer = await postCallback(t.callbackUrl("stkpush", "wrong"), undefined, "a\u0000b");
    expect(answer.status).toBe(403);
    expect(answer.body).toMatchObject({ success: false, error: { code: "FORBIDDEN" } });
    expect(await lastStored()).toMatchObject({ outcome: "rejected", rawBody: "a\ufffdb" });
  });

  it("with the token: a raw NUL or a \\u0000 escape is 400 MALFORMED_REQUEST, stored as malformed", async () => {
    for (const body of [`${stkCallback("ws_CO_1")}\u0000`, stkCallback("ws_CO_\u0000")]) {
      const answer = await postCallback(t.callbackUrl("b2c/result"), undefined, body);
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ success: false, error: { code: "MALFORMED_REQUEST" } });
      expect(await lastStored()).toMatchObject({ outcome: "malformed", flagReason: "the body holds a NUL character" });
    }
    const escaped = await postCallback(t.callbackUrl("stkpush"), undefined, stkCallback("ws_CO_\u0000"));
    expect(escaped.status).toBe(400);
  });
});
