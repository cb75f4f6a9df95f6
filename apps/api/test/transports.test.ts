/** One procedure, two transports: tRPC (/trpc) and REST (trpc-to-openapi) give the same results. */
import { Validator } from "@seriousme/openapi-schema-validator";
import { TRPCClientError } from "@trpc/client";
import { describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { registerUser, RestClient, trpcClient, uniqueEmail, type TestApp } from "./support/app.js";
import { skipDatabaseAgnostic } from "./support/database.js";

async function trpcError(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    if (error instanceof TRPCClientError) return error as TRPCClientError<any>;
    throw error;
  }
  throw new Error("expected a TRPCClientError");
}

describe.skipIf(skipDatabaseAgnostic)("tRPC and REST", () => {
  let t: TestApp;
  it.beforeAll(async ({ app }) => {
    t = app;
  });

  it("register over tRPC, then the same account over REST, and /me is identical on both", async () => {
    const client = trpcClient(t.url, () => ({ "x-tenant-id": "default" }));
    const email = uniqueEmail("trpc");
    const registered = await client.auth.register.mutate({ name: "Kipchoge Keino", email, password: "password123", phone: "0722000000" });
    expect(registered.success).toBe(true);
    expect(registered.data.user).toMatchObject({ name: "Kipchoge Keino", email, phone: "254722000000", email_verified: false });

    const rest = new RestClient(t.url);
    const login = await rest.post("/api/v1/auth/login", { email, password: "password123" });
    expect(login.status).toBe(200);
    const token = login.body.data.access_token;

    const authed = trpcClient(t.url, () => ({ "x-tenant-id": "default", authorization: `Bearer ${token}` }));
    const viaTrpc = await authed.profile.me.query();
    const viaRest = await rest.get("/api/v1/auth/me", token);
    expect(viaRest.body).toEqual(viaTrpc);
  });

  it("gives the same error code and status on both transports", async () => {
    const rest = new RestClient(t.url);
    const user = await registerUser(rest);
    const client = trpcClient(t.url, () => ({ "x-tenant-id": "default" }));

    const duplicate = await trpcError(client.auth.register.mutate({ name: "X", email: user.email, password: "password123" }));
    expect(duplicate.shape.error).toEqual({ code: "USER_EXISTS" });
    expect(duplicate.data.httpStatus).toBe(409);
    expect(duplicate.shape.success).toBe(false);

    const invalid = await trpcError(client.auth.register.mutate({ name: "", email: "nope", password: "x" } as never));
    const restInvalid = await rest.post("/api/v1/auth/register", { name: "", email: "nope", password: "x" });
    expect(invalid.data.httpStatus).toBe(422);
    expect(invalid.shape.error).toEqual(restInvalid.body.error);

    const wrong = await trpcError(client.auth.login.mutate({ email: user.email, password: "wrong-password" }));
    const restWrong = await rest.post("/api/v1/auth/login", { email: user.email, password: "wrong-password" });
    expect(wrong.shape.error.code).toBe("INVALID_CREDENTIALS");
    expect(wrong.message).toBe(restWrong.body.message);
    expect(wrong.data.httpStatus).toBe(restWrong.status);

    const noTenant = trpcClient(t.url, () => ({}));
    const missing = await trpcError(noTenant.auth.login.mutate({ email: user.email, password: user.password }));
    expect(missing.shape.error.code).toBe("TENANT_REQUIRED");
    expect(missing.data.httpStatus).toBe(400);
  });

  it("sets and rotates the refresh cookie through tRPC too", async () => {
    const response = await fetch(`${t.url}/trpc/auth.login`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-tenant-id": "default" },
      body: JSON.stringify(await (async () => {
        const user = await registerUser(new RestClient(t.url));
        return { email: user.email, password: user.password };
      })()),
    });
    expect(response.status).toBe(200);
    const cookie = response.headers.getSetCookie().find((c) => c.startsWith("refresh_token="));
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/Path=\/api\/v1\/auth/);
  });

  it("serves a valid OpenAPI 3 document listing every REST path", async () => {
    const doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as any;
    expect(doc.openapi).toMatch(/^3\./);
    // Validated against the official OpenAPI JSON Schema for its version.
    const validation = await new Validator().validate(structuredClone(doc));
    expect(validation.errors ?? []).toEqual([]);
    expect(validation.valid).toBe(true);
    expect(doc.info.title).toBeTruthy();
    const expected: Array<[string, string]> = [
      ["post", "/api/v1/auth/register"],
      ["post", "/api/v1/auth/login"],
      ["post", "/api/v1/auth/logout"],
      ["post", "/api/v1/auth/refresh"],
      ["get", "/api/v1/auth/me"],
      ["put", "/api/v1/auth/me"],
      ["put", "/api/v1/auth/me/password"],
      ["post", "/api/v1/admin/tenants"],
      ["get", "/api/v1/admin/tenants"],
      ["patch", "/api/v1/admin/tenants/{id}"],
      ["patch", "/api/v1/admin/users/{id}"],
      ["post", "/api/v1/auth/forgot-password"],
      ["post", "/api/v1/auth/reset-password"],
      ["post", "/api/v1/auth/verify-email"],
      ["post", "/api/v1/auth/verify-email/resend"],
      ["post", "/api/v1/auth/otp/setup"],
      ["post", "/api/v1/auth/otp/verify"],
      ["post", "/api/v1/auth/otp/validate"],
      ["delete", "/api/v1/auth/otp/disable"],
      ["get", "/api/v1/addresses"],
      ["post", "/api/v1/addresses"],
      ["put", "/api/v1/addresses/{id}"],
      ["delete", "/api/v1/addresses/{id}"],
      ["patch", "/api/v1/addresses/{id}/default"],
      ["get", "/api/v1/addresses/counties"],
      ["post", "/api/momo/stkpush"],
      ["post", "/api/momo/stkquery"],
      ["post", "/api/momo/b2c"],
      ["post", "/api/momo/callback/stkpush"],
      ["post", "/api/momo/callback/b2c/result"],
      ["post", "/api/momo/callback/b2c/timeout"],
    ];
    for (const [method, path] of expected) {
      expect(doc.paths[path]?.[method], `${method.toUpperCase()} ${path}`).toBeDefined();
    }
    const register = doc.paths["/api/v1/auth/register"].post;
    expect(Object.keys(register.responses)).toContain("201");
    expect(Object.keys(doc.paths["/api/v1/addresses"].post.responses)).toContain("201");
    expect(Object.keys(doc.paths["/api/v1/auth/login"].post.responses)).toContain("200");
    expect(register.requestBody.content["application/json"].schema).toBeDefined();
    expect(register.parameters.some((p: { name: string; in: string }) => p.in === "header" && p.name === "x-tenant-id")).toBe(true);
    expect(doc.paths["/api/v1/auth/me"].get.security).toEqual([{ Authorization: [] }]);
    expect(doc.components.securitySchemes.Authorization).toMatchObject({ type: "http", scheme: "bearer" });
  });
});
