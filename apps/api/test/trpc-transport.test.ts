/**
 * The tRPC mount (apps/api/src/http/trpc.ts): a whole JSON answer goes out as one document with its
 * Content-Length (not chunked through a stream reader: docs/performance.md), with tRPC's status and the
 * service's headers; an answer tRPC streams (a jsonl batch) still goes out as a stream.
 */
import { describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { registerUser, RestClient, type TestApp } from "./support/app.js";
import { skipDatabaseAgnostic } from "./support/database.js";

describe.skipIf(skipDatabaseAgnostic)("tRPC transport", () => {
  let t: TestApp;
  it.beforeAll(async ({ app }) => {
    t = app;
  });

  it("answers a query as one JSON document with a Content-Length and the security headers", async () => {
    const user = await registerUser(new RestClient(t.url));
    const response = await fetch(`${t.url}/trpc/profile.me`, { headers: { authorization: `Bearer ${user.accessToken}`, "x-tenant-id": "default" } });
    const text = await response.text();
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(response.headers.get("transfer-encoding")).toBeNull();
    expect(response.headers.get("content-length")).toBe(String(Buffer.byteLength(text)));
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(JSON.parse(text)).toMatchObject({ result: { data: { success: true, data: { id: user.id } } } });
  });

  it("keeps tRPC's error status and body", async () => {
    const response = await fetch(`${t.url}/trpc/profile.me`, { headers: { "x-tenant-id": "default" } });
    expect(response.status).toBe(401);
    expect(response.headers.get("transfer-encoding")).toBeNull();
    expect(JSON.stringify(await response.json())).toContain("UNAUTHORIZED");
  });

  it("still streams a batch the client asks to stream (jsonl)", async () => {
    const user = await registerUser(new RestClient(t.url));
    const response = await fetch(`${t.url}/trpc/profile.me,profile.me?batch=1&input=${encodeURIComponent("{}")}`, {
      headers: { authorization: `Bearer ${user.accessToken}`, "x-tenant-id": "default", "trpc-accept": "application/jsonl" },
    });
    const text = await response.text();
    expect(response.status).toBe(200);
    expect(response.headers.get("transfer-encoding")).toBe("chunked");
    expect(response.headers.get("content-length")).toBeNull();
    expect(text.trim().split("\n").length).toBeGreaterThan(1);
    expect(text).toContain(user.id);
  });
});
