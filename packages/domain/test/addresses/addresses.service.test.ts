import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientOf, createServiceDeps, signedInCustomer, type Client, type ServiceDeps } from "../support/caller.js";

const address = { label: "Home", recipient_name: "Wanjiku Kamau", phone: "0712345678", street: "Moi Avenue 12" };

describe("addresses service (createCaller)", () => {
  let service: ServiceDeps;
  let customer: Client;
  beforeAll(async () => {
    service = await createServiceDeps();
    customer = await signedInCustomer(service.deps, "addresses@example.com");
  });
  afterAll(() => service?.close());

  it("stores the county in its canonical form; the first address becomes the default and the list shows it", async () => {
    const created = await customer.call.addresses.create({ ...address, county: "  Homa Bay " });
    expect(created.data.address).toMatchObject({ label: "Home", county: "homa bay", is_default: true });
    const second = await customer.call.addresses.create({ ...address, label: "Office", county: "nairobi" });
    expect(second.data.address.is_default).toBe(false);

    const listed = await customer.call.addresses.list();
    expect(listed.data.addresses.map((a) => [a.label, a.county, a.is_default])).toEqual([
      ["Home", "homa bay", true],
      ["Office", "nairobi", false],
    ]);
  });

  it("refuses a county that is not one of the 47 (VALIDATION_ERROR, BAD_REQUEST over tRPC) and stores nothing", async () => {
    const before = (await customer.call.addresses.list()).data.addresses.length;
    await expect(customer.call.addresses.create({ ...address, county: "atlantis" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringContaining("county must be one of Kenya's 47 counties"),
    });
    expect((await customer.call.addresses.list()).data.addresses.length).toBe(before);
  });

  it("lists nothing of another customer's", async () => {
    const other = await signedInCustomer(service.deps, "other-addresses@example.com");
    expect((await other.call.addresses.list()).data.addresses).toEqual([]);
  });

  it("needs a token (AUTH_REQUIRED, UNAUTHORIZED over tRPC)", async () => {
    await expect(clientOf(service.deps).call.addresses.list()).rejects.toMatchObject({ code: "UNAUTHORIZED", cause: { code: "AUTH_REQUIRED" } });
  });
});
