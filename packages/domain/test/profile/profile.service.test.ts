import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServiceDeps, signedInCustomer, type Client, type ServiceDeps } from "../support/caller.js";

describe("profile service (createCaller)", () => {
  let service: ServiceDeps;
  let customer: Client;
  beforeAll(async () => {
    service = await createServiceDeps();
    customer = await signedInCustomer(service.deps, "profile@example.com");
  });
  afterAll(() => service?.close());

  it("updates the fields given and leaves the others; /me reads the change", async () => {
    const updated = await customer.call.profile.updateMe({ name: "Wanjiku K.", avatar_url: "https://cdn.example.com/w.png" });
    expect(updated.data).toMatchObject({ name: "Wanjiku K.", email: "profile@example.com", phone: null, avatar_url: "https://cdn.example.com/w.png" });
    const me = await customer.call.profile.me();
    expect(me.data).toMatchObject({ name: "Wanjiku K.", avatar_url: "https://cdn.example.com/w.png", email_verified: false });
  });

  it("clears the avatar with null and refuses a non-http(s) one", async () => {
    expect((await customer.call.profile.updateMe({ avatar_url: null })).data.avatar_url).toBeNull();
    await expect(customer.call.profile.updateMe({ avatar_url: "javascript:alert(1)" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringContaining("avatar_url must be an http(s) URL"),
    });
    expect((await customer.call.profile.me()).data.name).toBe("Wanjiku K.");
  });

  it("ends with the session: after logout the access token is refused (INVALID_TOKEN)", async () => {
    const client = await signedInCustomer(service.deps, "profile-logout@example.com");
    await client.call.auth.logout();
    await expect(client.call.profile.updateMe({ name: "Otieno O." })).rejects.toMatchObject({ code: "UNAUTHORIZED", cause: { code: "INVALID_TOKEN" } });
  });
});
