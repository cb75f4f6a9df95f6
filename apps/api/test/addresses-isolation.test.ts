/**
 * Address ownership (docs/addresses.md, docs/tenants.md): a customer sees and changes only their
 * own addresses in their own tenant; any other id answers NOT_FOUND, never revealing which.
 */
import { TRPCClientError } from "@trpc/client";
import { describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { RestClient, adminKey, registerUser, trpcClient, type TestApp } from "./support/app.js";
import { skipThisTarget } from "./support/database.js";

const base = "/api/v1/addresses";

function addressBody(overrides: Record<string, unknown> = {}) {
  return { label: "Home", recipient_name: "Achieng Otieno", phone: "0722000111", street: "Kenyatta Ave 3", county: "kisumu", ...overrides };
}

describe.skipIf(skipThisTarget)("addresses: ownership and tenants", () => {
  let t: TestApp;
  const shopB = "duka-la-pili";

  it.beforeAll(async ({ app }) => {
    t = app;
    const admin = new RestClient(t.url, "");
    const created = await admin.request("POST", "/api/v1/admin/tenants", {
      body: { id: shopB, name: "Duka la Pili" },
      headers: { authorization: `Bearer ${adminKey}` },
    });
    expect(created.status, JSON.stringify(created.body)).toBeLessThan(300);
  });

  async function setup() {
    const clientA = new RestClient(t.url, "default");
    const clientB = new RestClient(t.url, shopB);
    const owner = await registerUser(clientA);
    const neighbour = await registerUser(clientA);
    // The same email in another shop is another customer.
    const foreigner = await registerUser(clientB, { email: owner.email });
    const home = (await clientA.post(base, addressBody({ label: "Owner home" }), owner.accessToken)).body.data.address;
    const work = (await clientA.post(base, addressBody({ label: "Owner work" }), owner.accessToken)).body.data.address;
    return { clientA, clientB, owner, neighbour, foreigner, home, work };
  }

  async function listIds(client: RestClient, token: string) {
    const result = await client.get(base, token);
    expect(result.status).toBe(200);
    return (result.body.data.addresses as { id: string; is_default: boolean; label: string }[]);
  }

  it("hides another customer's addresses from the list", async () => {
    const { clientA, clientB, owner, neighbour, foreigner, home, work } = await setup();
    expect((await listIds(clientA, owner.accessToken)).map((a) => a.id).sort()).toEqual([home.id, work.id].sort());
    expect(await listIds(clientA, neighbour.accessToken)).toEqual([]);
    expect(await listIds(clientB, foreigner.accessToken)).toEqual([]);
  });

  it("answers NOT_FOUND to another customer of the same shop, and changes nothing", async () => {
    const { clientA, owner, neighbour, home, work } = await setup();
    await assertUntouchable(clientA, neighbour.accessToken, [home.id, work.id]);
    const after = await listIds(clientA, owner.accessToken);
    expect(after.map((a) => a.label).sort()).toEqual(["Owner home", "Owner work"]);
    expect(after.find((a) => a.is_default)?.id).toBe(home.id);
  });

  it("answers NOT_FOUND to a customer of another shop, with or without X-Tenant-ID", async () => {
    const { clientA, clientB, owner, foreigner, home, work } = await setup();
    await assertUntouchable(clientB, foreigner.accessToken, [home.id, work.id]);
    await assertUntouchable(new RestClient(t.url, ""), foreigner.accessToken, [home.id, work.id]);
    const after = await listIds(clientA, owner.accessToken);
    expect(after).toHaveLength(2);
    expect(after.find((a) => a.is_default)?.id).toBe(home.id);
  });

  it("answers the same NOT_FOUND for someone else's id as for an id that never existed", async () => {
    const { clientA, neighbour, home } = await setup();
    const theirs = await clientA.request("PATCH", `${base}/${home.id}/default`, { token: neighbour.accessToken });
    const nobodys = await clientA.request("PATCH", `${base}/7b0c5a8e-2a55-4c5e-9a51-0f6c2d9e1a11/default`, { token: neighbour.accessToken });
    const malformed = await clientA.request("PATCH", `${base}/zzz/default`, { token: neighbour.accessToken });
    expect(theirs.status).toBe(404);
    expect(theirs.body).toEqual(nobodys.body);
    expect(theirs.body).toEqual(malformed.body);
  });

  it("keeps each shop's customers in their shop: a token with another shop's X-Tenant-ID is INVALID_TOKEN", async () => {
    const { clientB, owner, foreigner, home } = await setup();
    const asDefault = new RestClient(t.url, "default");
    for (const result of [
      await asDefault.get(base, foreigner.accessToken),
      await asDefault.post(base, addressBody(), foreigner.accessToken),
      await asDefault.request("PATCH", `${base}/${home.id}/default`, { token: foreigner.accessToken }),
      await clientB.get(base, owner.accessToken),
      await clientB.request("DELETE", `${base}/${home.id}`, { token: owner.accessToken }),
    ]) {
      expect(result.status).toBe(401);
      expect(result.body.error.code).toBe("INVALID_TOKEN");
    }
    // The foreigner's own shop works with or without the header, and keeps its own default.
    const mine = await clientB.post(base, addressBody({ label: "Shop B home" }), foreigner.accessToken);
    expect(mine.status).toBe(201);
    expect(mine.body.data.address.is_default).toBe(true);
    const listed = await listIds(new RestClient(t.url, ""), foreigner.accessToken);
    expect(listed.map((a) => a.label)).toEqual(["Shop B home"]);
  });

  it("keeps the default rule per customer", async () => {
    const { clientA, owner, neighbour, home } = await setup();
    const theirs = await clientA.post(base, addressBody({ is_default: true }), neighbour.accessToken);
    expect(theirs.body.data.address.is_default).toBe(true);
    const own = await listIds(clientA, owner.accessToken);
    expect(own.find((a) => a.is_default)?.id).toBe(home.id);
  });

  it("answers NOT_FOUND over tRPC too", async () => {
    const { neighbour, foreigner, home } = await setup();
    for (const [token, tenant] of [
      [neighbour.accessToken, "default"],
      [foreigner.accessToken, shopB],
    ] as const) {
      const trpc = trpcClient(t.url, () => ({ authorization: `Bearer ${token}`, "x-tenant-id": tenant }));
      for (const call of [
        () => trpc.addresses.setDefault.mutate({ id: home.id }),
        () => trpc.addresses.remove.mutate({ id: home.id }),
        () => trpc.addresses.update.mutate({ id: home.id, ...addressBody() }),
      ]) {
        const error = await call().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(TRPCClientError);
        expect((error as TRPCClientError<any>).shape.error.code).toBe("NOT_FOUND");
        expect((error as TRPCClientError<any>).data.httpStatus).toBe(404);
      }
    }
  });

  it("filters by tenant in the database as well as by user", async () => {
    const { owner } = await setup();
    const rows = await t.deps.db.unscoped("test").address.findMany({ where: { userId: owner.id } });
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(row.tenantId).toBe("default");
  });

  async function assertUntouchable(client: RestClient, token: string, ids: string[]) {
    for (const id of ids) {
      const put = await client.put(`${base}/${id}`, addressBody({ label: "Hijacked" }), token);
      const patch = await client.request("PATCH", `${base}/${id}/default`, { token });
      const del = await client.request("DELETE", `${base}/${id}`, { token });
      for (const result of [put, patch, del]) {
        expect(result.status).toBe(404);
        expect(result.body).toMatchObject({ success: false, error: { code: "NOT_FOUND" } });
      }
    }
  }
});
