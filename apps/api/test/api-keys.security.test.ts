/**
 * The API key as a credential (docs/api-keys.md#errors): it names its tenant, it is refused at once
 * once revoked (on every instance), it opens server operations only (a key on a customer operation and
 * a customer token on a server operation answer 403), and it never reaches a log line.
 */
import { randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import { TRPCClientError } from "@trpc/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminKey, registerUser, RestClient, startTestApp, trpcClient, type TestApp } from "./support/app.js";
import { skipThisTarget } from "./support/database.js";

const current = "/api/v1/api-keys/current";

describe.skipIf(skipThisTarget)("API keys as a credential", () => {
  let t: TestApp;
  const admin = (method: string, path: string, body?: unknown, url = t.url) =>
    new RestClient(url, "").request(method, path, { ...(body !== undefined ? { body } : {}), headers: { authorization: `Bearer ${adminKey}` } });
  async function createKey(tenantId: string, url = t.url) {
    const res = await admin("POST", `/api/v1/admin/tenants/${tenantId}/api-keys`, { name: "Backend" }, url);
    expect(res.status).toBe(201);
    return res.body.data as { id: string; key: string };
  }
  const call = (token: string, tenantHeader = "", path = current, url = t.url) => new RestClient(url, tenantHeader).get(path, token);
  const expectError = (res: { status: number; body: any }, status: number, code: string) => {
    expect(res.status).toBe(status);
    expect(res.body.error.code).toBe(code);
  };
  let key: string;
  let keyId: string;
  // Shared by a second instance on the same database.
  const sharedEnv = { DATA_ENCRYPTION_KEY: randomBytes(32).toString("hex") };

  beforeAll(async () => {
    t = await startTestApp(sharedEnv);
    for (const id of ["shop-a", "shop-b"]) expect((await admin("POST", "/api/v1/admin/tenants", { id, name: id })).status).toBe(200);
    ({ key, id: keyId } = await createKey("shop-a"));
  });
  afterAll(async () => t?.close());

  it("accepts X-Tenant-ID only when it names the key's tenant (else 401 INVALID_TOKEN)", async () => {
    expect((await call(key, "shop-a")).status).toBe(200);
    expectError(await call(key, "shop-b"), 401, "INVALID_TOKEN");
    expectError(await call(key, "no-such-shop"), 401, "INVALID_TOKEN");
  });

  it("refuses a wrong key or another credential with 401, and no credential with AUTH_REQUIRED", async () => {
    expectError(await call(`mk_${randomBytes(32).toString("base64url")}`), 401, "INVALID_TOKEN");
    expectError(await call(`${key.slice(0, -1)}${key.endsWith("A") ? "B" : "A"}`), 401, "INVALID_TOKEN");
    expectError(await call("not-a-key-at-all"), 401, "INVALID_TOKEN");
    expectError(await call(adminKey), 401, "INVALID_TOKEN");
    expectError(await new RestClient(t.url, "").get(current), 401, "AUTH_REQUIRED");
    // Nor is an API key the operator's key.
    expectError(await call(key, "", "/api/v1/admin/tenants"), 401, "INVALID_TOKEN");
  });

  it("answers 403 FORBIDDEN to a customer's access token on a server operation, over REST and tRPC", async () => {
    const customer = await registerUser(new RestClient(t.url));
    expectError(await call(customer.accessToken), 403, "FORBIDDEN");
    expectError(await call(customer.accessToken, "default"), 403, "FORBIDDEN");
    const trpc = trpcClient(t.url, () => ({ authorization: `Bearer ${customer.accessToken}` }));
    const refused = (await trpc.apiKeys.current.query().catch((error: unknown) => error)) as TRPCClientError<any>;
    expect(refused).toBeInstanceOf(TRPCClientError);
    expect(refused.data.httpStatus).toBe(403);
    expect(refused.shape.error.code).toBe("FORBIDDEN");
  });

  it("answers 403 FORBIDDEN to an API key on a customer operation, over REST and tRPC", async () => {
    const asKey = (method: string, path: string, body?: unknown) =>
      new RestClient(t.url, "shop-a").request(method, path, { token: key, ...(body !== undefined ? { body } : {}) });
    for (const res of [
      await asKey("GET", "/api/v1/auth/me"),
      await asKey("PUT", "/api/v1/auth/me", { name: "Shop server" }),
      await asKey("POST", "/api/v1/auth/otp/setup"),
      await asKey("GET", "/api/v1/addresses"),
      await asKey("POST", "/api/momo/stkpush", { phone: "0712345678", amount: 10 }),
      await asKey("GET", "/api/momo/payments"),
      await asKey("POST", "/api/momo/b2c", { phone: "0712345678", amount: 10 }),
    ]) {
      expectError(res, 403, "FORBIDDEN");
    }
    const trpc = trpcClient(t.url, () => ({ authorization: `Bearer ${key}`, "x-tenant-id": "shop-a" }));
    const refused = (await trpc.profile.me.query().catch((error: unknown) => error)) as TRPCClientError<any>;
    expect(refused).toBeInstanceOf(TRPCClientError);
    expect(refused.data.httpStatus).toBe(403);
    expect(refused.shape.error.code).toBe("FORBIDDEN");
  });

  it("refuses the keys of a deactivated tenant (401) and accepts them again once it is active", async () => {
    const { key: bKey } = await createKey("shop-b");
    expect((await call(bKey)).status).toBe(200);
    expect((await admin("PATCH", "/api/v1/admin/tenants/shop-b", { active: false })).status).toBe(200);
    expectError(await call(bKey), 401, "INVALID_TOKEN");
    expect((await admin("PATCH", "/api/v1/admin/tenants/shop-b", { active: true })).status).toBe(200);
    expect((await call(bKey)).status).toBe(200);
  });

  it("holds a revocation at once on every instance, with no log line carrying the key", async () => {
    const raw: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, callback) {
        raw.push(String(chunk));
        callback();
      },
    });
    // A second instance on the same database, logging everything.
    const other = await startTestApp({ ...sharedEnv, LOG_LEVEL: "trace" }, { database: t.database, logStream: stream });
    try {
      const { key: logged, id: loggedId } = await createKey("shop-a", other.url);
      expect((await call(logged, "shop-a", current, other.url)).status).toBe(200);
      expect((await call(key, "", current, other.url)).status).toBe(200);

      // Revoked through the first instance, refused by the second on the next request.
      expect((await admin("DELETE", `/api/v1/admin/tenants/shop-a/api-keys/${keyId}`)).status).toBe(200);
      expectError(await call(key, "", current, other.url), 401, "INVALID_TOKEN");
      expectError(await call(key), 401, "INVALID_TOKEN");

      expect((await admin("DELETE", `/api/v1/admin/tenants/shop-a/api-keys/${loggedId}`, undefined, other.url)).status).toBe(200);
      expectError(await call(logged, "", current, other.url), 401, "INVALID_TOKEN");

      const lines = raw.join("");
      expect(lines.length).toBeGreaterThan(0);
      for (const secret of [logged, key, adminKey]) expect(lines).not.toContain(secret);
      // The key's random part, in case some serialiser cut or escaped it.
      expect(lines).not.toContain(logged.slice(12, 40));
    } finally {
      await other.close();
    }
  });
});
