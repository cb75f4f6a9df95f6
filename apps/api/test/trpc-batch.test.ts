/**
 * tRPC batches: at most 10 calls in one request. A larger batch answers 400 MALFORMED_REQUEST and none
 * of its calls run (GET queries and POST mutations alike).
 */
import { describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { registerUser, RestClient, type TestApp } from "./support/app.js";
import { skipDatabaseAgnostic } from "./support/database.js";
import { addressBody } from "./support/addresses.js";


describe.skipIf(skipDatabaseAgnostic)("tRPC batch size", () => {
  let t: TestApp;
  it.beforeAll(async ({ app }) => {
    t = app;
  });

  async function createAddressesInOneBatch(token: string, calls: number) {
    const paths = Array.from({ length: calls }, () => "addresses.create").join(",");
    const input = Object.fromEntries(Array.from({ length: calls }, (_, i) => [String(i), addressBody({ label: `Home ${i}` })]));
    const response = await fetch(`${t.url}/trpc/${paths}?batch=1`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify(input),
    });
    return { status: response.status, body: (await response.json()) as any };
  }

  const storedAddresses = async (userId: string) => t.deps.db.unscoped("test").address.count({ where: { userId } });

  it("runs a batch of 10 calls", async () => {
    const user = await registerUser(new RestClient(t.url));
    const answer = await createAddressesInOneBatch(user.accessToken, 10);
    expect(answer.status).toBe(200);
    expect(answer.body).toHaveLength(10);
    expect(answer.body.every((call: any) => call.result?.data?.success === true)).toBe(true);
    expect(await storedAddresses(user.id)).toBe(10);
  });

  it("refuses a batch of 11 mutations with 400 MALFORMED_REQUEST and runs none of them", async () => {
    const user = await registerUser(new RestClient(t.url));
    const answer = await createAddressesInOneBatch(user.accessToken, 11);
    expect(answer.status).toBe(400);
    const errors = Array.isArray(answer.body) ? answer.body.map((call: any) => call.error) : [answer.body.error];
    expect(errors.length).toBeGreaterThan(0);
    for (const error of errors) expect(error).toMatchObject({ success: false, error: { code: "MALFORMED_REQUEST" }, data: { httpStatus: 400 } });
    expect(await storedAddresses(user.id)).toBe(0);
  });

  it("refuses a batch of 200 queries the same way", async () => {
    const user = await registerUser(new RestClient(t.url));
    const paths = Array.from({ length: 200 }, () => "profile.me").join(",");
    const response = await fetch(`${t.url}/trpc/${paths}?batch=1&input=${encodeURIComponent("{}")}`, {
      headers: { authorization: `Bearer ${user.accessToken}`, "x-tenant-id": "default" },
    });
    expect(response.status).toBe(400);
    expect(JSON.stringify(await response.json())).toContain("MALFORMED_REQUEST");
  });
});
