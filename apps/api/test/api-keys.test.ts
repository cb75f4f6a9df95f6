/**
 * API keys of shop backends (docs/api-keys.md): the operator creates, lists and revokes them with
 * ADMIN_API_KEY; a shop's server calls server operations with one. Through REST and tRPC.
 */
import { createHash } from "node:crypto";
import { TRPCClientError } from "@trpc/client";
import { describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { adminKey, RestClient, trpcClient, type TestApp } from "./support/app.js";
import { testClock } from "./support/clock.js";
import { skipThisTarget } from "./support/database.js";

const keyPattern = /^mk_live_[A-Za-z0-9_-]{43}$/;

const clock = testClock();
it.override({ appOptions: { now: clock.now } });

describe.skipIf(skipThisTarget)("API keys", () => {
  let t: TestApp;
  const admin = (method: string, path: string, body?: unknown) =>
    new RestClient(t.url, "").request(method, path, { ...(body !== undefined ? { body } : {}), headers: { authorization: `Bearer ${adminKey}` } });
  const server = (key: string, tenantId = "") => new RestClient(t.url, tenantId).get("/api/v1/api-keys/current", key);
  let tenants = 0;
  async function newTenant(): Promise<string> {
    tenants += 1;
    const id = `keys-shop-${tenants}`;
    expect((await admin("POST", "/api/v1/admin/tenants", { id, name: `Shop ${tenants}` })).status).toBe(200);
    return id;
  }
  async function createKey(tenantId: string, name = "Checkout backend") {
    const res = await admin("POST", `/api/v1/admin/tenants/${tenantId}/api-keys`, { name });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.data as { id: string; name: string; key: string; prefix: string; created_at: string };
  }

  it.beforeAll(async ({ app }) => {
    t = app;
  });

  it("creates a key shown once (201, no-store), lists it without the key, and the key calls a server operation", async () => {
    const tenantId = await newTenant();
    const res = await admin("POST", `/api/v1/admin/tenants/${tenantId}/api-keys`, { name: "  Checkout backend  " });
    expect(res.status).toBe(201);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const created = res.body.data;
    expect(Object.keys(created).sort()).toEqual(["created_at", "id", "key", "livemode", "name", "prefix"]);
    expect(created).toMatchObject({ name: "Checkout backend", livemode: true, created_at: clock.now().toISOString() });
    expect(created.key).toMatch(keyPattern);
    expect(created.prefix).toBe(created.key.slice(0, 17));

    const list = await admin("GET", `/api/v1/admin/tenants/${tenantId}/api-keys`);
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual({
      api_keys: [{ id: created.id, name: "Checkout backend", prefix: created.prefix, livemode: true, created_at: created.created_at, last_used_at: null, revoked_at: null }],
      next_cursor: null,
    });
    expect(JSON.stringify(list.body)).not.toContain(created.key);

    for (const header of ["", tenantId]) {
      const current = await server(created.key, header);
      expect(current.status).toBe(200);
      expect(current.body.data).toEqual({ id: created.id, name: "Checkout backend", prefix: created.prefix, livemode: true, tenant_id: tenantId });
    }
  });

  it("stores only the SHA-256 of the key", async () => {
    const tenantId = await newTenant();
    const created = await createKey(tenantId);
    const rows = await t.deps.db.unscoped("test").$queryRaw<Record<string, unknown>[]>`SELECT * FROM api_keys WHERE id = ${created.id}::uuid`;
    expect(rows).toHaveLength(1);
    expect(rows[0]!.key_hash).toBe(createHash("sha256").update(created.key).digest("hex"));
    expect(rows[0]!.prefix).toBe(created.prefix);
    expect(JSON.stringify(rows)).not.toContain(created.key.slice(17));
  });

  it("revokes a key at once (200, data null); revoking it again changes nothing", async () => {
    const tenantId = await newTenant();
    const kept = await createKey(tenantId, "Kept");
    const gone = await createKey(tenantId, "Gone");
    expect((await server(gone.key)).status).toBe(200);

    clock.advance(5);
    const revoked = await admin("DELETE", `/api/v1/admin/tenants/${tenantId}/api-keys/${gone.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ success: true, data: null });
    const refused = await server(gone.key);
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe("INVALID_TOKEN");
    expect((await server(kept.key)).status).toBe(200);

    const revokedAt = clock.now().toISOString();
    clock.advance(5);
    expect((await admin("DELETE", `/api/v1/admin/tenants/${tenantId}/api-keys/${gone.id}`)).status).toBe(200);
    const list = await admin("GET", `/api/v1/admin/tenants/${tenantId}/api-keys`);
    const byName = Object.fromEntries(list.body.data.api_keys.map((k: { name: string }) => [k.name, k]));
    expect(byName.Gone.revoked_at).toBe(revokedAt);
    expect(byName.Kept.revoked_at).toBeNull();
  });

  it("answers 404 NOT_FOUND for an unknown tenant or key, as the other admin tenant routes do", async () => {
    const tenantId = await newTenant();
    const other = await newTenant();
    const otherKey = await createKey(other);
    const unknownId = "00000000-0000-4000-8000-000000000000";
    const answers = [
      await admin("POST", "/api/v1/admin/tenants/no-such-shop/api-keys", { name: "x" }),
      await admin("GET", "/api/v1/admin/tenants/no-such-shop/api-keys"),
      await admin("DELETE", `/api/v1/admin/tenants/no-such-shop/api-keys/${unknownId}`),
      await admin("DELETE", `/api/v1/admin/tenants/${tenantId}/api-keys/${unknownId}`),
      // Another tenant's key is no key of this one, and stays usable.
      await admin("DELETE", `/api/v1/admin/tenants/${tenantId}/api-keys/${otherKey.id}`),
      await admin("PATCH", "/api/v1/admin/tenants/no-such-shop", { name: "x" }),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(404);
      expect(answer.body.error.code).toBe("NOT_FOUND");
    }
    expect((await server(otherKey.key)).status).toBe(200);
  });

  it("validates the name, the page size and the cursor (422)", async () => {
    const tenantId = await newTenant();
    const base = `/api/v1/admin/tenants/${tenantId}/api-keys`;
    for (const body of [{}, { name: "" }, { name: "   " }, { name: "x".repeat(101) }, { name: "two\nlines" }, { name: 7 }]) {
      const res = await admin("POST", base, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error.code).toBe("VALIDATION_ERROR");
      expect(res.body.error.details[0].path).toBe("name");
    }
    expect((await admin("POST", base, { name: "x".repeat(100) })).status).toBe(201);
    for (const query of ["limit=0", "limit=101", "limit=x", "cursor=not-a-cursor", "cursor=00000000-0000-4000-8000-000000000000"]) {
      const res = await admin("GET", `${base}?${query}`);
      expect(res.status, query).toBe(422);
      expect(res.body.error.code).toBe("VALIDATION_ERROR");
    }
    expect((await admin("DELETE", `${base}/not-a-uuid`)).status).toBe(422);
  });

  it("pages the list newest first with limit and next_cursor", async () => {
    const tenantId = await newTenant();
    const names = ["first", "second", "third"];
    for (const name of names) {
      await createKey(tenantId, name);
      clock.advance(1);
    }
    const base = `/api/v1/admin/tenants/${tenantId}/api-keys`;
    const first = await admin("GET", `${base}?limit=2`);
    expect(first.body.data.api_keys.map((k: { name: string }) => k.name)).toEqual(["third", "second"]);
    expect(first.body.data.next_cursor).toEqual(expect.any(String));
    const second = await admin("GET", `${base}?limit=2&cursor=${first.body.data.next_cursor}`);
    expect(second.body.data).toMatchObject({ api_keys: [{ name: "first" }], next_cursor: null });
    const whole = await admin("GET", base);
    expect(whole.body.data.api_keys).toHaveLength(3);
  });

  it("allows at most 25 live keys per tenant (422); a revoked key frees a place", async () => {
    const tenantId = await newTenant();
    const keys = [];
    for (let i = 0; i < 25; i++) keys.push(await createKey(tenantId, `key ${i}`));
    const refused = await admin("POST", `/api/v1/admin/tenants/${tenantId}/api-keys`, { name: "one too many" });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe("VALIDATION_ERROR");
    expect(refused.body.message).toMatch(/at most 25 API keys/);
    expect((await admin("DELETE", `/api/v1/admin/tenants/${tenantId}/api-keys/${keys[0]!.id}`)).status).toBe(200);
    await createKey(tenantId, "in its place");
  });

  it("records last_used_at at most once a minute per key", async () => {
    const tenantId = await newTenant();
    const created = await createKey(tenantId);
    const lastUsed = async () =>
      (await admin("GET", `/api/v1/admin/tenants/${tenantId}/api-keys`)).body.data.api_keys.find((k: { id: string }) => k.id === created.id).last_used_at;
    expect(await lastUsed()).toBeNull();
    const firstUse = clock.now().toISOString();
    expect((await server(created.key)).status).toBe(200);
    expect(await lastUsed()).toBe(firstUse);
    clock.advance(59);
    expect((await server(created.key)).status).toBe(200);
    expect(await lastUsed()).toBe(firstUse);
    clock.advance(2);
    expect((await server(created.key)).status).toBe(200);
    expect(await lastUsed()).toBe(clock.now().toISOString());
  });

  it("works the same over tRPC", async () => {
    const tenantId = await newTenant();
    const operator = trpcClient(t.url, () => ({ authorization: `Bearer ${adminKey}` }));
    const created = await operator.apiKeys.create.mutate({ id: tenantId, name: "Over tRPC" });
    expect(created.data.key).toMatch(keyPattern);
    const listed = await operator.apiKeys.list.query({ id: tenantId });
    expect(listed.data.api_keys.map((k) => k.id)).toEqual([created.data.id]);

    const backend = trpcClient(t.url, () => ({ authorization: `Bearer ${created.data.key}` }));
    expect((await backend.apiKeys.current.query()).data).toMatchObject({ id: created.data.id, tenant_id: tenantId });

    expect((await operator.apiKeys.revoke.mutate({ id: tenantId, keyId: created.data.id })).data).toBeNull();
    const refused = await backend.apiKeys.current.query().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TRPCClientError);
    expect((refused as TRPCClientError<any>).data.httpStatus).toBe(401);
    expect((refused as TRPCClientError<any>).shape.error.code).toBe("INVALID_TOKEN");
  });

  it("documents the apiKey bearer scheme on the server operation and ADMIN_API_KEY on the admin ones", async () => {
    const doc = (await new RestClient(t.url).get("/openapi.json")).body;
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.paths["/api/v1/api-keys/current"].get.security).toEqual([{ apiKey: [] }]);
    expect(doc.paths["/api/v1/admin/tenants/{id}/api-keys"].post.security).toEqual([{ adminApiKey: [] }]);
    expect(doc.paths["/api/v1/admin/tenants/{id}/api-keys"].post.responses["201"]).toBeDefined();
    expect(doc.paths["/api/v1/admin/tenants/{id}/api-keys"].get.security).toEqual([{ adminApiKey: [] }]);
    expect(doc.paths["/api/v1/admin/tenants/{id}/api-keys/{keyId}"].delete.security).toEqual([{ adminApiKey: [] }]);
  });
});
