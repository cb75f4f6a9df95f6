import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientOf, createServiceDeps, type Client, type ServiceDeps } from "../support/caller.js";

describe("profile service (createCaller)", () => {
  let service: ServiceDeps;
  let customer: Client;
  beforeAll(async () => {
    service = await createServiceDeps();
    customer = clientOf(service.deps);
    const registered = await customer.call.auth.register({ name: "Wanjiku Kamau", email: "profile@example.com", password: "correct horse battery" });
    customer.accessToken = registered.data.access_token;
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
    const client = clientOf(service.deps);
    client.accessToken = (await client.call.auth.register({ name: "Otieno", email: "profile-logout@example.com", password: "correct horse battery" })).data.access_token;
    await client.call.auth.logout();
    await expect(client.call.profile.updateMe({ name: "Otieno O." })).rejects.toMatchObject({ code: "UNAUTHORIZED", cause: { code: "INVALID_TOKEN" } });
  });
});
