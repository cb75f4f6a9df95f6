/** Shops (tenants) a test creates through the admin API. */
import { randomBytes } from "node:crypto";
import { expect } from "vitest";
import { adminKey, RestClient, type TestApp } from "./app.js";

/** Creates a shop with an id no other test uses, and the given settings; answers its id. */
export async function newShop(t: TestApp, settings: Record<string, unknown> = {}): Promise<string> {
  const id = `shop-${randomBytes(4).toString("hex")}`;
  const created = await new RestClient(t.url, "").request("POST", "/api/v1/admin/tenants", {
    body: { id, name: `Shop ${id}`, settings },
    headers: { authorization: `Bearer ${adminKey}` },
  });
  expect(created.status).toBe(200);
  return id;
}
