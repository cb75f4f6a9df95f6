/**
 * Delivery addresses through the real HTTP surface (docs/addresses.md):
 * shapes, validation, default rules, the counties list and authentication, over REST and tRPC.
 */
import { TRPCClientError } from "@trpc/client";
import { describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { RestClient, registerUser, trpcClient, type TestApp } from "./support/app.js";
import { skipThisTarget } from "./support/database.js";
import { addressBody } from "./support/addresses.js";

const base = "/api/v1/addresses";
const summaryKeys = ["county", "id", "is_default", "label", "phone", "recipient_name", "street", "town"];
const fullKeys = [...summaryKeys, "coordinates", "landmark"].sort();

function without(key: string) {
  const body: Record<string, unknown> = addressBody();
  delete body[key];
  return body;
}

describe.skipIf(skipThisTarget)("addresses", () => {
  let t: TestApp;
  let client: RestClient;

  it.beforeAll(async ({ app }) => {
    t = app;
    client = new RestClient(t.url);
  });

  async function newCustomer() {
    return registerUser(client);
  }

  async function create(token: string, overrides: Record<string, unknown> = {}) {
    const result = await client.post(base, addressBody(overrides), token);
    expect(result.status, JSON.stringify(result.body)).toBe(201);
    return result.body.data.address as Record<string, any>;
  }

  async function list(token: string) {
    const result = await client.get(base, token);
    expect(result.status).toBe(200);
    return result.body.data.addresses as Record<string, any>[];
  }

  function defaults(addresses: Record<string, any>[]) {
    return addresses.filter((address) => address.is_default).map((address) => address.id);
  }

  function expectValidationError(result: { status: number; body: any }, path: string) {
    expect(result.status, JSON.stringify(result.body)).toBe(422);
    expect(result.body.success).toBe(false);
    expect(result.body.error.code).toBe("VALIDATION_ERROR");
    expect(typeof result.body.message).toBe("string");
    const paths = (result.body.error.details as { path: string; message: string }[]).map((detail) => detail.path);
    expect(paths).toContain(path);
    for (const detail of result.body.error.details) expect(typeof detail.message).toBe("string");
  }

  describe("counties", () => {
    it("lists the 47 counties publicly, without a token or a tenant", async () => {
      const anonymous = new RestClient(t.url, "");
      const result = await anonymous.get(`${base}/counties`);
      expect(result.status).toBe(200);
      expect(result.body.success).toBe(true);
      const counties = result.body.data.counties as { code: string; name: string; canonical: string }[];
      expect(counties).toHaveLength(47);
      for (const county of counties) expect(Object.keys(county).sort()).toEqual(["canonical", "code", "name"]);
      expect(new Set(counties.map((county) => county.canonical)).size).toBe(47);
      expect(new Set(counties.map((county) => county.code)).size).toBe(47);
      expect(counties[0]).toEqual({ code: "001", name: "Mombasa", canonical: "mombasa" });
      expect(counties).toContainEqual({ code: "047", name: "Nairobi", canonical: "nairobi" });
      expect(counties).toContainEqual({ code: "021", name: "Murang'a", canonical: "murang'a" });
      expect(counties).toContainEqual({ code: "043", name: "Homa Bay", canonical: "homa bay" });
      expect(counties).toContainEqual({ code: "013", name: "Tharaka-Nithi", canonical: "tharaka-nithi" });
      expect(counties).toContainEqual({ code: "028", name: "Elgeyo-Marakwet", canonical: "elgeyo-marakwet" });
      // No tenant is involved: even an unknown X-Tenant-ID gets the same list.
      const unknownShop = await new RestClient(t.url, "no-such-shop").get(`${base}/counties`);
      expect(unknownShop.status).toBe(200);
      expect(unknownShop.body.data.counties).toEqual(counties);
    });

    it("is not confused with the address routes, with or without a token", async () => {
      const user = await newCustomer();
      const withToken = await client.get(`${base}/counties`, user.accessToken);
      expect(withToken.status).toBe(200);
      expect(withToken.body.data.counties).toHaveLength(47);
      expect(withToken.body.data.addresses).toBeUndefined();
      // "counties" read as an address id is simply an unknown address.
      const put = await client.put(`${base}/counties`, addressBody(), user.accessToken);
      expect(put.status).toBe(404);
      expect(put.body.error.code).toBe("NOT_FOUND");
      const del = await client.request("DELETE", `${base}/counties`, { token: user.accessToken });
      expect(del.status).toBe(404);
      const patch = await client.request("PATCH", `${base}/counties/default`, { token: user.accessToken });
      expect(patch.status).toBe(404);
    });

    it("every listed county is accepted on create and comes back canonical", async () => {
      const user = await newCustomer();
      const { body } = await client.get(`${base}/counties`);
      const counties = body.data.counties as { name: string; canonical: string }[];
      for (const county of counties.slice(0, 47)) {
        // The display name (any case) is accepted too.
        const created = await client.post(base, addressBody({ county: county.name.toUpperCase() }), user.accessToken);
        expect(created.status, county.name).toBe(201);
        expect(created.body.data.address.county).toBe(county.canonical);
        await client.request("DELETE", `${base}/${created.body.data.address.id}`, { token: user.accessToken });
      }
    });
  });

  describe("create", () => {
    it("answers 201 with the full address, normalised, and makes the first one default", async () => {
      const user = await newCustomer();
      const result = await client.post(base, addressBody({ phone: "+254 712 345 678".replace(/ /g, ""), county: "Homa-Bay" }), user.accessToken);
      expect(result.status).toBe(201);
      expect(result.body.success).toBe(true);
      expect(typeof result.body.message).toBe("string");
      const address = result.body.data.address;
      expect(Object.keys(result.body.data)).toEqual(["address"]);
      expect(Object.keys(address).sort()).toEqual(fullKeys);
      expect(address).toMatchObject({
        label: "Home",
        recipient_name: "Wanjiku Kamau",
        phone: "254712345678",
        street: "Ngong Road, Apt 4B",
        county: "homa bay",
        town: "Kilimani",
        landmark: "Opposite Prestige Plaza",
        coordinates: { lat: -1.2921, lng: 36.8219 },
        is_default: true,
      });
      expect(address.id).toMatch(/^[0-9a-f-]{36}$/);
    });

    it("stores optional fields as null when absent, and trims strings", async () => {
      const user = await newCustomer();
      const address = await create(user.accessToken, {
        label: "  Office  ",
        street: "  Moi Avenue 12 ",
        town: undefined,
        landmark: "",
        coordinates: undefined,
        phone: "0112345678",
      });
      expect(address).toMatchObject({ label: "Office", street: "Moi Avenue 12", town: null, landmark: null, coordinates: null, phone: "254112345678" });
      const explicitNulls = await create(user.accessToken, { town: null, landmark: null, coordinates: null });
      expect(explicitNulls).toMatchObject({ town: null, landmark: null, coordinates: null, is_default: false });
    });

    it("ignores unknown fields", async () => {
      const user = await newCustomer();
      const address = await create(user.accessToken, { user_id: "00000000-0000-0000-0000-000000000000", tenant_id: "other", id: "x", extra: 1 });
      expect(Object.keys(address).sort()).toEqual(fullKeys);
      expect(address.id).not.toBe("x");
    });

    it.each([
      ["homa bay", "homa bay"],
      ["homa-bay", "homa bay"],
      ["Homa_Bay", "homa bay"],
      ["  HOMA   BAY ", "homa bay"],
      ["tharaka nithi", "tharaka-nithi"],
      ["tharaka-nithi", "tharaka-nithi"],
      ["Tharaka_Nithi", "tharaka-nithi"],
      ["elgeyo marakwet", "elgeyo-marakwet"],
      ["elgeyo-marakwet", "elgeyo-marakwet"],
      ["murang'a", "murang'a"],
      ["muranga", "murang'a"],
      ["Murang’a", "murang'a"],
      ["taita taveta", "taita-taveta"],
      ["trans nzoia", "trans-nzoia"],
      ["uasin-gishu", "uasin gishu"],
      ["west_pokot", "west pokot"],
      ["tana river", "tana river"],
      ["Nairobi", "nairobi"],
      ["nairobi city", "nairobi"],
      ["MOMBASA", "mombasa"],
    ])("accepts county %j and stores %j", async (given, canonical) => {
      const user = await newCustomer();
      const address = await create(user.accessToken, { county: given });
      expect(address.county).toBe(canonical);
      const [listed] = await list(user.accessToken);
      expect(listed?.county).toBe(canonical);
    });

    it.each(["atlantis", "nairobi county", "nairobi county x", "homabay bay", "kisumu1", "", "   ", "kampala"])("rejects county %j", async (county) => {
      const user = await newCustomer();
      expectValidationError(await client.post(base, addressBody({ county }), user.accessToken), "county");
    });

    it.each(["label", "recipient_name", "phone", "street", "county"])("requires %s", async (field) => {
      const user = await newCustomer();
      expectValidationError(await client.post(base, without(field), user.accessToken), field);
      expectValidationError(await client.post(base, addressBody({ [field]: "   " }), user.accessToken), field);
      expectValidationError(await client.post(base, addressBody({ [field]: 42 }), user.accessToken), field);
      expect(await list(user.accessToken)).toEqual([]);
    });

    it("reports every missing field at once", async () => {
      const user = await newCustomer();
      const result = await client.post(base, {}, user.accessToken);
      expect(result.status).toBe(422);
      const paths = result.body.error.details.map((detail: { path: string }) => detail.path).sort();
      expect(paths).toEqual(["county", "label", "phone", "recipient_name", "street"]);
    });

    it.each(["12345", "0812345678", "07123456789", "+255712345678", "phone", "254812345678"])("rejects phone %j", async (phone) => {
      const user = await newCustomer();
      expectValidationError(await client.post(base, addressBody({ phone }), user.accessToken), "phone");
    });

    it.each([
      ["0712345678", "254712345678"],
      ["0112345678", "254112345678"],
      ["254712345678", "254712345678"],
      ["+254712345678", "254712345678"],
      ["254112345678", "254112345678"],
    ])("normalises phone %j to %j", async (phone, stored) => {
      const user = await newCustomer();
      expect((await create(user.accessToken, { phone })).phone).toBe(stored);
    });

    it.each([
      [{ lat: 5.2, lng: 36.8 }, "coordinates.lat"],
      [{ lat: -5.0, lng: 36.8 }, "coordinates.lat"],
      [{ lat: 0, lng: 33.7 }, "coordinates.lng"],
      [{ lat: 0, lng: 42.1 }, "coordinates.lng"],
      [{ lat: 51.5, lng: -0.12 }, "coordinates.lat"],
      [{ lat: -1.29 }, "coordinates.lng"],
      [{ lng: 36.8 }, "coordinates.lat"],
      [{ lat: "-1.29", lng: 36.8 }, "coordinates.lat"],
      [{ lat: null, lng: 36.8 }, "coordinates.lat"],
      [{ lat: "", lng: 36.8 }, "coordinates.lat"],
      [{ lat: true, lng: 36.8 }, "coordinates.lat"],
      [{ lat: 0, lng: "37" }, "coordinates.lng"],
      [[-1.29, 36.8], "coordinates"],
      ["-1.29,36.8", "coordinates"],
    ])("rejects coordinates %j", async (coordinates, path) => {
      const user = await newCustomer();
      expectValidationError(await client.post(base, addressBody({ coordinates }), user.accessToken), path);
    });

    it("accepts coordinates on Kenya's bounds", async () => {
      const user = await newCustomer();
      expect((await create(user.accessToken, { coordinates: { lat: -4.9, lng: 33.8 } })).coordinates).toEqual({ lat: -4.9, lng: 33.8 });
      expect((await create(user.accessToken, { coordinates: { lat: 5.1, lng: 42 } })).coordinates).toEqual({ lat: 5.1, lng: 42 });
    });

    it.each([
      ["label", 50],
      ["recipient_name", 100],
      ["street", 200],
      ["town", 100],
      ["landmark", 200],
    ])("limits %s to %i characters", async (field, max) => {
      const user = await newCustomer();
      expectValidationError(await client.post(base, addressBody({ [field]: "a".repeat(max + 1) }), user.accessToken), field);
      const atLimit = await create(user.accessToken, { [field]: "a".repeat(max) });
      expect(atLimit[field]).toBe("a".repeat(max));
    });

    it("rejects a non-boolean is_default and non-string optional text", async () => {
      const user = await newCustomer();
      // JSON types are strict: "false" must not read as true, nor null as 0.
      for (const is_default of ["yes", "false", "true", 0, 1, null]) {
        expectValidationError(await client.post(base, addressBody({ is_default }), user.accessToken), "is_default");
      }
      expectValidationError(await client.post(base, addressBody({ town: 7 }), user.accessToken), "town");
      expectValidationError(await client.post(base, addressBody({ landmark: {} }), user.accessToken), "landmark");
    });

    it("rejects a body that is not JSON", async () => {
      const user = await newCustomer();
      const result = await client.request("POST", base, { token: user.accessToken, rawBody: "{not json", headers: { "content-type": "application/json" } });
      expect(result.status).toBe(400);
      expect(result.body.error.code).toBe("MALFORMED_REQUEST");
    });

    it("allows at most 50 addresses per customer (the 51st is a VALIDATION_ERROR)", async () => {
      const user = await newCustomer();
      for (let i = 0; i < 50; i++) await create(user.accessToken, { label: `Address ${i}` });
      const result = await client.post(base, addressBody({ label: "One too many" }), user.accessToken);
      expect(result.status).toBe(422);
      expect(result.body.error.code).toBe("VALIDATION_ERROR");
      expect(result.body.message).toMatch(/at most 50 addresses/);
      expect(result.body.error.details).toEqual([{ path: "(body)", message: "at most 50 addresses per customer" }]);
      const addresses = await list(user.accessToken);
      expect(addresses).toHaveLength(50);
      expect(addresses.map((address) => address.label)).not.toContain("One too many");
      // Deleting one makes room again.
      await client.request("DELETE", `${base}/${addresses[10]!.id}`, { token: user.accessToken });
      await create(user.accessToken, { label: "Room again" });
      // Another customer is not affected by this one's count.
      const other = await newCustomer();
      await create(other.accessToken);
    });
  });

  describe("list", () => {
    it("is empty for a new customer", async () => {
      const user = await newCustomer();
      const result = await client.get(base, user.accessToken);
      expect(result.status).toBe(200);
      expect(result.body).toMatchObject({ success: true, data: { addresses: [] } });
    });

    it("shows exactly the listed fields, default first then newest first", async () => {
      const user = await newCustomer();
      const first = await create(user.accessToken, { label: "First" });
      const second = await create(user.accessToken, { label: "Second", town: null });
      const third = await create(user.accessToken, { label: "Third" });
      const addresses = await list(user.accessToken);
      for (const address of addresses) expect(Object.keys(address).sort()).toEqual(summaryKeys);
      expect(addresses.map((address) => address.id)).toEqual([first.id, third.id, second.id]);
      expect(addresses[0]).toEqual({
        id: first.id,
        label: "First",
        recipient_name: "Wanjiku Kamau",
        phone: "254712345678",
        street: "Ngong Road, Apt 4B",
        county: "nairobi",
        town: "Kilimani",
        is_default: true,
      });
      expect(addresses[2]!.town).toBeNull();

      await client.request("PATCH", `${base}/${second.id}/default`, { token: user.accessToken });
      expect((await list(user.accessToken)).map((address) => address.id)).toEqual([second.id, third.id, first.id]);
    });
  });

  describe("default rules", () => {
    it("keeps the first address default when more are added", async () => {
      const user = await newCustomer();
      const first = await create(user.accessToken, { is_default: false });
      expect(first.is_default).toBe(true);
      const second = await create(user.accessToken);
      expect(second.is_default).toBe(false);
      expect(defaults(await list(user.accessToken))).toEqual([first.id]);
    });

    it("creating with is_default: true makes it the only default", async () => {
      const user = await newCustomer();
      await create(user.accessToken);
      await create(user.accessToken);
      const chosen = await create(user.accessToken, { is_default: true });
      expect(chosen.is_default).toBe(true);
      expect(defaults(await list(user.accessToken))).toEqual([chosen.id]);
    });

    it("PATCH default sets it and clears every other", async () => {
      const user = await newCustomer();
      const a = await create(user.accessToken);
      const b = await create(user.accessToken);
      const c = await create(user.accessToken);
      for (const target of [b, c, a, a]) {
        const result = await client.request("PATCH", `${base}/${target.id}/default`, { token: user.accessToken });
        expect(result.status).toBe(200);
        expect(result.body.success).toBe(true);
        expect(result.body.data).toEqual({ address: { id: target.id, is_default: true } });
        expect(defaults(await list(user.accessToken))).toEqual([target.id]);
      }
    });

    it("deleting the default promotes the most recent remaining address", async () => {
      const user = await newCustomer();
      const a = await create(user.accessToken, { label: "A" });
      const b = await create(user.accessToken, { label: "B" });
      const c = await create(user.accessToken, { label: "C" });
      const d = await create(user.accessToken, { label: "D" });
      await client.request("PATCH", `${base}/${b.id}/default`, { token: user.accessToken });

      const removed = await client.request("DELETE", `${base}/${b.id}`, { token: user.accessToken });
      expect(removed.status).toBe(200);
      expect(removed.body).toMatchObject({ success: true, data: null });
      expect(defaults(await list(user.accessToken))).toEqual([d.id]);

      // Deleting a non-default leaves the default alone.
      await client.request("DELETE", `${base}/${a.id}`, { token: user.accessToken });
      expect(defaults(await list(user.accessToken))).toEqual([d.id]);

      await client.request("DELETE", `${base}/${d.id}`, { token: user.accessToken });
      expect(defaults(await list(user.accessToken))).toEqual([c.id]);

      await client.request("DELETE", `${base}/${c.id}`, { token: user.accessToken });
      expect(await list(user.accessToken)).toEqual([]);

      // The next address after deleting them all is default again.
      const fresh = await create(user.accessToken);
      expect(fresh.is_default).toBe(true);
    });

    it("deleting twice answers NOT_FOUND the second time", async () => {
      const user = await newCustomer();
      const a = await create(user.accessToken);
      expect((await client.request("DELETE", `${base}/${a.id}`, { token: user.accessToken })).status).toBe(200);
      const again = await client.request("DELETE", `${base}/${a.id}`, { token: user.accessToken });
      expect(again.status).toBe(404);
      expect(again.body).toMatchObject({ success: false, error: { code: "NOT_FOUND" } });
    });
  });

  describe("update", () => {
    it("replaces every editable field and answers the full address", async () => {
      const user = await newCustomer();
      const a = await create(user.accessToken);
      const result = await client.put(
        `${base}/${a.id}`,
        { label: "Work", recipient_name: "Otieno Ochieng", phone: "+254112345678", street: "Oginga Odinga St", county: "Kisumu" },
        user.accessToken,
      );
      expect(result.status).toBe(200);
      expect(Object.keys(result.body.data)).toEqual(["address"]);
      expect(result.body.data.address).toEqual({
        id: a.id,
        label: "Work",
        recipient_name: "Otieno Ochieng",
        phone: "254112345678",
        street: "Oginga Odinga St",
        county: "kisumu",
        town: null,
        landmark: null,
        coordinates: null,
        is_default: true,
      });
      const [listed] = await list(user.accessToken);
      expect(listed).toMatchObject({ id: a.id, label: "Work", county: "kisumu", town: null });
    });

    it("requires the same fields as create and validates them the same way", async () => {
      const user = await newCustomer();
      const a = await create(user.accessToken);
      for (const field of ["label", "recipient_name", "phone", "street", "county"]) {
        expectValidationError(await client.put(`${base}/${a.id}`, without(field), user.accessToken), field);
      }
      expectValidationError(await client.put(`${base}/${a.id}`, addressBody({ county: "gotham" }), user.accessToken), "county");
      expectValidationError(await client.put(`${base}/${a.id}`, addressBody({ coordinates: { lat: 10, lng: 36 } }), user.accessToken), "coordinates.lat");
      expectValidationError(await client.put(`${base}/${a.id}`, addressBody({ label: "x".repeat(51) }), user.accessToken), "label");
      const updated = await client.put(`${base}/${a.id}`, addressBody({ county: "muranga", phone: "0798765432" }), user.accessToken);
      expect(updated.body.data.address).toMatchObject({ county: "murang'a", phone: "254798765432" });
    });

    it("is_default: true moves the default; false never leaves the customer without one", async () => {
      const user = await newCustomer();
      const a = await create(user.accessToken);
      const b = await create(user.accessToken);
      const moved = await client.put(`${base}/${b.id}`, addressBody({ is_default: true }), user.accessToken);
      expect(moved.body.data.address.is_default).toBe(true);
      expect(defaults(await list(user.accessToken))).toEqual([b.id]);

      const kept = await client.put(`${base}/${b.id}`, addressBody({ is_default: false }), user.accessToken);
      expect(kept.status).toBe(200);
      expect(kept.body.data.address.is_default).toBe(true);
      expect(defaults(await list(user.accessToken))).toEqual([b.id]);

      const other = await client.put(`${base}/${a.id}`, addressBody({ label: "Renamed" }), user.accessToken);
      expect(other.body.data.address.is_default).toBe(false);
      expect(defaults(await list(user.accessToken))).toEqual([b.id]);
    });

    it("answers NOT_FOUND for an unknown or malformed id", async () => {
      const user = await newCustomer();
      for (const id of ["3f0e4b8e-1111-4a2b-9c3d-123456789abc", "not-a-uuid", "1", "%27%20OR%201%3D1"]) {
        const put = await client.put(`${base}/${id}`, addressBody(), user.accessToken);
        expect(put.status, id).toBe(404);
        expect(put.body.error.code).toBe("NOT_FOUND");
        const del = await client.request("DELETE", `${base}/${id}`, { token: user.accessToken });
        expect(del.status, id).toBe(404);
        expect(del.body.error.code).toBe("NOT_FOUND");
        const patch = await client.request("PATCH", `${base}/${id}/default`, { token: user.accessToken });
        expect(patch.status, id).toBe(404);
        expect(patch.body.error.code).toBe("NOT_FOUND");
      }
    });
  });

  describe("authentication", () => {
    it("answers AUTH_REQUIRED without a token on every operation", async () => {
      const anonymous = new RestClient(t.url);
      const id = "3f0e4b8e-1111-4a2b-9c3d-123456789abc";
      const calls = [
        anonymous.get(base),
        anonymous.post(base, addressBody()),
        anonymous.put(`${base}/${id}`, addressBody()),
        anonymous.request("DELETE", `${base}/${id}`),
        anonymous.request("PATCH", `${base}/${id}/default`),
      ];
      for (const result of await Promise.all(calls)) {
        expect(result.status).toBe(401);
        expect(result.body).toMatchObject({ success: false, error: { code: "AUTH_REQUIRED" } });
      }
    });

    it("answers INVALID_TOKEN for a bad token or an ended session", async () => {
      const bad = await client.get(base, "not.a.jwt");
      expect(bad.status).toBe(401);
      expect(bad.body.error.code).toBe("INVALID_TOKEN");

      const own = new RestClient(t.url);
      const user = await registerUser(own);
      await create(user.accessToken);
      expect((await own.post("/api/v1/auth/logout", undefined, user.accessToken)).status).toBeLessThan(300);
      const after = await own.get(base, user.accessToken);
      expect(after.status).toBe(401);
      expect(after.body.error.code).toBe("INVALID_TOKEN");
    });

    it("takes the tenant from the token: X-Tenant-ID is optional and must match", async () => {
      const user = await newCustomer();
      const a = await create(user.accessToken);
      const noHeader = new RestClient(t.url, "");
      const listed = await noHeader.get(base, user.accessToken);
      expect(listed.status).toBe(200);
      expect(listed.body.data.addresses.map((address: { id: string }) => address.id)).toEqual([a.id]);
      const created = await noHeader.post(base, addressBody(), user.accessToken);
      expect(created.status).toBe(201);

      const wrongTenant = new RestClient(t.url, "some-other-shop");
      const mismatch = await wrongTenant.get(base, user.accessToken);
      expect(mismatch.status).toBe(401);
      expect(mismatch.body.error.code).toBe("INVALID_TOKEN");
      const mismatchCreate = await wrongTenant.post(base, addressBody(), user.accessToken);
      expect(mismatchCreate.status).toBe(401);
      expect(await list(user.accessToken)).toHaveLength(2);
    });
  });

  it("documents the five operations and the counties list in the OpenAPI document", async () => {
    const doc = (await client.get("/openapi.json")).body;
    const methods = (path: string) => Object.keys(doc.paths[path] ?? {}).sort();
    expect(methods(base)).toEqual(["get", "post"]);
    expect(methods(`${base}/{id}`)).toEqual(["delete", "put"]);
    expect(methods(`${base}/{id}/default`)).toEqual(["patch"]);
    expect(methods(`${base}/counties`)).toEqual(["get"]);
    const body = doc.paths[base].post.requestBody.content["application/json"].schema;
    expect(body.required.sort()).toEqual(["county", "label", "phone", "recipient_name", "street"]);
    expect(body.properties.is_default.type).toBe("boolean");
  });

  describe("tRPC", () => {
    function trpcFor(token: string | undefined, tenant: string | undefined = "default") {
      return trpcClient(t.url, () => ({
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(tenant ? { "x-tenant-id": tenant } : {}),
      }));
    }

    async function trpcError(promise: Promise<unknown>) {
      try {
        await promise;
      } catch (error) {
        expect(error).toBeInstanceOf(TRPCClientError);
        return error as TRPCClientError<any>;
      }
      throw new Error("expected a tRPC error");
    }

    it("serves every operation with the REST shapes", async () => {
      const user = await newCustomer();
      const trpc = trpcFor(user.accessToken);

      const created = await trpc.addresses.create.mutate({ ...addressBody({ county: "Elgeyo Marakwet", phone: "0712000111" }), coordinates: null });
      expect(created.success).toBe(true);
      expect(created.data.address).toMatchObject({ county: "elgeyo-marakwet", phone: "254712000111", coordinates: null, is_default: true });
      const second = await trpc.addresses.create.mutate(addressBody({ label: "Second" }));
      expect(second.data.address.is_default).toBe(false);

      const listed = await trpc.addresses.list.query();
      expect(listed.data.addresses.map((address) => address.id)).toEqual([created.data.address.id, second.data.address.id]);
      for (const address of listed.data.addresses) expect(Object.keys(address).sort()).toEqual(summaryKeys);

      const updated = await trpc.addresses.update.mutate({ id: second.data.address.id, ...addressBody({ label: "Renamed", town: null }) });
      expect(updated.data.address).toMatchObject({ id: second.data.address.id, label: "Renamed", town: null });

      const made = await trpc.addresses.setDefault.mutate({ id: second.data.address.id });
      expect(made.data).toEqual({ address: { id: second.data.address.id, is_default: true } });

      const removed = await trpc.addresses.remove.mutate({ id: second.data.address.id });
      expect(removed).toMatchObject({ success: true, data: null });
      const after = await trpc.addresses.list.query();
      expect(after.data.addresses).toEqual([expect.objectContaining({ id: created.data.address.id, is_default: true })]);

      const counties = await trpcFor(undefined, undefined).addresses.counties.query();
      expect(counties.data.counties).toHaveLength(47);
    });

    it("reports the documented error codes", async () => {
      const user = await newCustomer();
      const trpc = trpcFor(user.accessToken);

      const invalid = await trpcError(trpc.addresses.create.mutate(addressBody({ county: "narnia", phone: "123" })));
      expect(invalid.shape.error.code).toBe("VALIDATION_ERROR");
      expect(invalid.data.httpStatus).toBe(422);
      expect(invalid.shape.error.details.map((detail: { path: string }) => detail.path).sort()).toEqual(["county", "phone"]);

      for (const id of ["3f0e4b8e-1111-4a2b-9c3d-123456789abc", "garbage"]) {
        const missing = await trpcError(trpc.addresses.setDefault.mutate({ id }));
        expect(missing.shape.error.code).toBe("NOT_FOUND");
        expect(missing.data.httpStatus).toBe(404);
        const missingRemove = await trpcError(trpc.addresses.remove.mutate({ id }));
        expect(missingRemove.shape.error.code).toBe("NOT_FOUND");
        const missingUpdate = await trpcError(trpc.addresses.update.mutate({ id, ...addressBody() }));
        expect(missingUpdate.shape.error.code).toBe("NOT_FOUND");
      }

      const anonymous = await trpcError(trpcFor(undefined).addresses.list.query());
      expect(anonymous.shape.error.code).toBe("AUTH_REQUIRED");
      expect(anonymous.data.httpStatus).toBe(401);

      const mismatch = await trpcError(trpcFor(user.accessToken, "another-shop").addresses.list.query());
      expect(mismatch.shape.error.code).toBe("INVALID_TOKEN");
      expect(mismatch.data.httpStatus).toBe(401);

      const noTenantHeader = await trpcFor(user.accessToken, undefined).addresses.list.query();
      expect(noTenantHeader.success).toBe(true);
    });
  });
});
