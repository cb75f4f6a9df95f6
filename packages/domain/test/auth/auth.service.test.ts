import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientOf, createServiceDeps, type ServiceDeps } from "../support/caller.js";

const password = "correct horse battery";

describe("auth service (createCaller)", () => {
  let service: ServiceDeps;
  beforeAll(async () => {
    service = await createServiceDeps();
  });
  afterAll(() => service?.close());

  const register = async (email: string) => {
    const client = clientOf(service.deps);
    const result = await client.call.auth.register({ name: "Wanjiku Kamau", email, password });
    return { client, result };
  };

  it("registers a customer: an access token, a refresh cookie and a verification mail in the outbox", async () => {
    const { client, result } = await register("register@example.com");
    expect(result.data.user).toMatchObject({ name: "Wanjiku Kamau", email: "register@example.com", email_verified: false });
    expect(await service.deps.tokens.verify(result.data.access_token)).toMatchObject({ sub: result.data.user.id, tid: "default" });
    expect(client.cookies.get("refresh_token")).toEqual(expect.any(String));
    expect(await service.deps.db.unscoped("test").mailOutbox.count({ where: { toAddress: "register@example.com", kind: "verifyEmail" } })).toBe(1);
  });

  it("logs in with the right password only; a wrong one is INVALID_CREDENTIALS (UNAUTHORIZED over tRPC)", async () => {
    await register("login@example.com");
    const client = clientOf(service.deps);
    const signedIn = await client.call.auth.login({ email: "login@example.com", password });
    expect(signedIn.data).toMatchObject({ requires_otp: false, access_token: expect.any(String), user: { email: "login@example.com" } });
    expect(client.cookies.get("refresh_token")).toEqual(expect.any(String));

    const refused = await clientOf(service.deps).call.auth.login({ email: "login@example.com", password: "not the password" }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TRPCError);
    expect(refused).toMatchObject({ code: "UNAUTHORIZED", cause: { code: "INVALID_CREDENTIALS", status: 401 } });
  });

  it("rotates the refresh cookie on every refresh; presenting a rotated one after the grace window revokes the session", async () => {
    const { client } = await register("rotate@example.com");
    const first = client.cookies.get("refresh_token")!;
    const refreshed = await client.call.auth.refresh();
    expect(refreshed.data.access_token).toEqual(expect.any(String));
    const second = client.cookies.get("refresh_token")!;
    expect(second).not.toBe(first);

    service.clock.advance((service.deps.config.refreshReuseGraceSeconds + 1) * 1000);
    const thief = clientOf(service.deps);
    thief.cookies.set("refresh_token", first);
    await expect(thief.call.auth.refresh()).rejects.toMatchObject({ code: "UNAUTHORIZED", cause: { code: "INVALID_TOKEN" } });
    expect(thief.cookies.has("refresh_token")).toBe(false);

    // The whole family ends: the legitimate holder's current cookie no longer works either.
    await expect(client.call.auth.refresh()).rejects.toMatchObject({ cause: { code: "INVALID_TOKEN" } });
    const user = await service.deps.db.unscoped("test").user.findFirstOrThrow({ where: { email: "rotate@example.com" } });
    const sessions = await service.deps.db.unscoped("test").session.findMany({ where: { userId: user.id } });
    expect(sessions.map((s) => s.revokedReason)).toEqual(["refresh_token_reuse"]);
  });

  it("answers two tabs refreshing with the same cookie inside the grace window with the same successor", async () => {
    const { client } = await register("tabs@example.com");
    const shared = client.cookies.get("refresh_token")!;
    await client.call.auth.refresh();
    const successor = client.cookies.get("refresh_token");
    const otherTab = clientOf(service.deps);
    otherTab.cookies.set("refresh_token", shared);
    await otherTab.call.auth.refresh();
    expect(otherTab.cookies.get("refresh_token")).toBe(successor);
  });

  it("maps a taken email to USER_EXISTS (CONFLICT) and a missing tenant header to TENANT_REQUIRED (BAD_REQUEST)", async () => {
    await register("taken@example.com");
    await expect(clientOf(service.deps).call.auth.register({ name: "Another", email: "taken@example.com", password })).rejects.toMatchObject({
      code: "CONFLICT",
      cause: { code: "USER_EXISTS", status: 409 },
    });
    await expect(clientOf(service.deps, { tenant: undefined }).call.auth.login({ email: "taken@example.com", password })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      cause: { code: "TENANT_REQUIRED", status: 400 },
    });
  });
});
