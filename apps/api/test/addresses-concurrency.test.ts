/**
 * Concurrent address changes of one customer (docs/addresses.md: at most one default, enforced
 * by the database; the first address is default; deleting the default promotes another). Whatever
 * the interleaving, a customer with addresses ends with exactly one default and never a 500.
 */
import { describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { RestClient, registerUser, type TestApp } from "./support/app.js";
import { skipThisTarget } from "./support/database.js";

const base = "/api/v1/addresses";

function addressBody(overrides: Record<string, unknown> = {}) {
  return { label: "Home", recipient_name: "Kamau Njoroge", phone: "0733000111", street: "Moi Avenue 1", county: "mombasa", ...overrides };
}

describe.skipIf(skipThisTarget)("addresses: concurrency", () => {
  let t: TestApp;
  let client: RestClient;

  it.beforeAll(async ({ app }) => {
    t = app;
    client = new RestClient(t.url);
  });

  async function create(token: string, overrides: Record<string, unknown> = {}) {
    const result = await client.post(base, addressBody(overrides), token);
    expect(result.status, JSON.stringify(result.body)).toBe(201);
    return result.body.data.address as { id: string; is_default: boolean };
  }

  /** Through the API and straight from the database: both must agree on exactly one default. */
  async function expectOneDefault(user: { id: string; accessToken: string }, expectedCount?: number) {
    const listed = await client.get(base, user.accessToken);
    expect(listed.status).toBe(200);
    const addresses = listed.body.data.addresses as { id: string; is_default: boolean }[];
    if (expectedCount !== undefined) expect(addresses).toHaveLength(expectedCount);
    const defaults = addresses.filter((address) => address.is_default);
    if (addresses.length === 0) {
      expect(defaults).toHaveLength(0);
      return undefined;
    }
    expect(defaults).toHaveLength(1);
    const rows = await t.deps.db.unscoped("test").address.count({ where: { tenantId: "default", userId: user.id, isDefault: true } });
    expect(rows).toBe(1);
    return defaults[0]!.id;
  }

  it("a burst of 20 PATCH default calls over several addresses leaves exactly one default", async () => {
    const user = await registerUser(client);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await create(user.accessToken, { label: `A${i}` })).id);
    for (let round = 0; round < 3; round++) {
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => client.request("PATCH", `${base}/${ids[(i + round) % ids.length]}/default`, { token: user.accessToken })),
      );
      for (const result of results) expect(result.status, JSON.stringify(result.body)).toBe(200);
      const winner = await expectOneDefault(user, 5);
      expect(ids).toContain(winner);
    }
  });

  it("concurrent creates for a customer with no addresses make exactly one default", async () => {
    const user = await registerUser(client);
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => client.post(base, addressBody({ label: `C${i}` }), user.accessToken)));
    for (const result of results) expect(result.status, JSON.stringify(result.body)).toBe(201);
    expect(results.filter((result) => result.body.data.address.is_default)).toHaveLength(1);
    await expectOneDefault(user, 12);
  });

  it("concurrent creates with is_default: true leave exactly one default", async () => {
    const user = await registerUser(client);
    await create(user.accessToken);
    const results = await Promise.all(Array.from({ length: 10 }, () => client.post(base, addressBody({ is_default: true }), user.accessToken)));
    for (const result of results) expect(result.status).toBe(201);
    const winner = await expectOneDefault(user, 11);
    expect(results.map((result) => result.body.data.address.id)).toContain(winner);
  });

  it("deleting the default while others set a default leaves exactly one default", async () => {
    const user = await registerUser(client);
    for (let round = 0; round < 4; round++) {
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) ids.push((await create(user.accessToken, { label: `R${round}-${i}` })).id);
      const current = await expectOneDefault(user);
      const others = ids.filter((id) => id !== current);
      const results = await Promise.all([
        client.request("DELETE", `${base}/${current}`, { token: user.accessToken }),
        client.request("PATCH", `${base}/${others[0]}/default`, { token: user.accessToken }),
        client.request("DELETE", `${base}/${others[1]}`, { token: user.accessToken }),
        client.request("PATCH", `${base}/${others[2]}/default`, { token: user.accessToken }),
        client.post(base, addressBody({ is_default: round % 2 === 0 }), user.accessToken),
      ]);
      for (const result of results) expect(result.status, JSON.stringify(result.body)).toBeLessThan(300);
      await expectOneDefault(user);
    }
  });

  it("deleting every address at once while setting defaults ends with none, and the next one is default", async () => {
    const user = await registerUser(client);
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await create(user.accessToken)).id);
    const results = await Promise.all([
      ...ids.map((id) => client.request("DELETE", `${base}/${id}`, { token: user.accessToken })),
      ...ids.map((id) => client.request("PATCH", `${base}/${id}/default`, { token: user.accessToken })),
    ]);
    for (const result of results) expect([200, 404]).toContain(result.status);
    for (const result of results.slice(0, ids.length)) expect(result.status).toBe(200);
    expect(await expectOneDefault(user, 0)).toBeUndefined();
    expect((await create(user.accessToken)).is_default).toBe(true);
  });

  it("concurrent creates never exceed the 50-address limit", async () => {
    const user = await registerUser(client);
    for (let i = 0; i < 45; i++) await create(user.accessToken, { label: `L${i}` });
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => client.post(base, addressBody({ label: `Burst ${i}` }), user.accessToken)));
    expect(results.filter((result) => result.status === 201)).toHaveLength(5);
    const rejected = results.filter((result) => result.status !== 201);
    expect(rejected).toHaveLength(5);
    for (const result of rejected) {
      expect(result.status).toBe(422);
      expect(result.body.error.code).toBe("VALIDATION_ERROR");
    }
    await expectOneDefault(user, 50);
  });

  it("the database itself refuses a second default", async () => {
    const user = await registerUser(client);
    await create(user.accessToken);
    const second = await create(user.accessToken);
    await expect(t.deps.db.unscoped("test").address.update({ where: { id: second.id }, data: { isDefault: true } })).rejects.toThrow();
    await expectOneDefault(user, 2);
  });
});
