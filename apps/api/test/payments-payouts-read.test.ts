/**
 * Reading payouts (admin only): GET /api/momo/payouts and /api/momo/payouts/{originatorConversationId}
 * against the simulator — the result callback's outcome shows up in both; status and date filters;
 * keyset pagination; customers are FORBIDDEN; another tenant's admin sees nothing (NOT_FOUND by id).
 */
import { TRPCClientError } from "@trpc/client";
import { describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { adminKey, registerUser, RestClient, trpcClient } from "./support/app.js";
import { skipThisTarget } from "./support/database.js";
import type { DarajaApp } from "./support/daraja.js";
import type { Simulator } from "./support/simulator.js";
import { waitFor } from "./support/wait.js";

const shopB = "payout-shop-b";
const viewKeys = [
  "amount",
  "commandId",
  "conversationId",
  "createdAt",
  "id",
  "livemode",
  "occasion",
  "originatorConversationId",
  "phone",
  "receiverName",
  "remarks",
  "requestedBy",
  "resultCode",
  "resultDesc",
  "settledAt",
  "status",
  "transactionId",
];

function trpcError(error: unknown): { code: string; httpStatus: number } {
  expect(error).toBeInstanceOf(TRPCClientError);
  const e = error as TRPCClientError<any>;
  return { code: e.shape.error.code, httpStatus: e.data.httpStatus };
}

describe.skipIf(skipThisTarget)("payout reads (simulator)", () => {
  let sim: Simulator;
  let t: DarajaApp;
  let admin: { id: string; accessToken: string };
  let customer: { id: string; accessToken: string };
  let foreignAdmin: { id: string; accessToken: string };
  let restB: RestClient;
  /** originatorConversationIds, in the order they were sent. */
  let succeeded: string;
  let failed: string;
  let sentAfter: Date;

  const get = (path: string, token = admin.accessToken) => t.rest.get(path, token);
  const settled = (ocid: string) =>
    waitFor(async () => {
      const answer = await get(`/api/momo/payouts/${ocid}`);
      return answer.status === 200 && answer.body.data.payout.status !== "PENDING" ? answer.body.data.payout : undefined;
    });
  const listed = async (query: string, token = admin.accessToken) => {
    const answer = await get(`/api/momo/payouts${query}`, token);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body.data as { payouts: { originatorConversationId: string; status: string }[]; nextCursor: string | null };
  };
  const ids = (page: { payouts: { originatorConversationId: string }[] }) => page.payouts.map((p) => p.originatorConversationId);

  it.beforeAll(async ({ launch }) => {
    sim = await launch.sim();
    t = await launch.momo({ darajaUrl: sim.url, b2c: { securityCredential: sim.securityCredential } });
    admin = await t.admin();
    customer = await t.customer();

    const operator = { authorization: `Bearer ${adminKey}` };
    const tenant = await new RestClient(t.url, "").request("POST", "/api/v1/admin/tenants", { body: { id: shopB, name: "Duka la Pili" }, headers: operator });
    expect(tenant.status, JSON.stringify(tenant.body)).toBeLessThan(300);
    restB = new RestClient(t.url, shopB);
    const userB = await registerUser(restB);
    const promoted = await restB.request("PATCH", `/api/v1/admin/users/${userB.id}`, { body: { role: "admin" }, headers: operator });
    expect(promoted.status).toBe(200);
    const login = await restB.post("/api/v1/auth/login", { email: userB.email, password: userB.password });
    foreignAdmin = { id: userB.id, accessToken: login.body.data.access_token };

    const send = async (body: Record<string, unknown>) => {
      const answer = await t.rest.request("POST", "/api/momo/b2c", { body, token: admin.accessToken });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      return answer.body.data.originatorConversationId as string;
    };
    succeeded = await send({ phone: "0712345678", amount: 500, remarks: "Refund order 9", occasion: "Refund" });
    await settled(succeeded);
    failed = await send({ phone: "0722000111", amount: 11 });
    await settled(failed);
    sentAfter = new Date();
  });

  it("answers a settled payout by id with its result (SUCCESS: receipt and receiver)", async () => {
    const answer = await get(`/api/momo/payouts/${succeeded}`);
    expect(answer.status).toBe(200);
    expect(answer.body.success).toBe(true);
    const payout = answer.body.data.payout;
    expect(Object.keys(payout).sort()).toEqual(viewKeys);
    const row = await t.deps.db.unscoped("test").payout.findUniqueOrThrow({ where: { originatorConversationId: succeeded } });
    expect(payout).toEqual({
      id: row.id,
      livemode: true,
      originatorConversationId: succeeded,
      conversationId: expect.stringMatching(/^AG_/),
      transactionId: expect.stringMatching(/^[A-Z0-9]{10}$/),
      requestedBy: admin.id,
      phone: "254712345678",
      amount: 500,
      commandId: "BusinessPayment",
      remarks: "Refund order 9",
      occasion: "Refund",
      status: "SUCCESS",
      resultCode: "0",
      resultDesc: expect.any(String),
      receiverName: expect.stringContaining("254712345678"),
      createdAt: row.createdAt.toISOString(),
      settledAt: row.settledAt!.toISOString(),
    });
    expect(payout.conversationId).toBe(row.conversationId);
    expect(payout.transactionId).toBe(row.transactionId);
  });

  it("answers a failed payout (insufficient funds) with its ResultCode and description", async () => {
    const payout = (await get(`/api/momo/payouts/${failed}`)).body.data.payout;
    expect(payout).toMatchObject({ originatorConversationId: failed, status: "FAILED", resultCode: "1", amount: 11, phone: "254722000111", remarks: "Payout", occasion: null });
    expect(payout.resultDesc).toMatch(/insufficient/i);
    expect(payout.settledAt).not.toBeNull();
  });

  it("lists the tenant's payouts newest first, filtered by status and dates", async () => {
    expect(ids(await listed(""))).toEqual([failed, succeeded]);
    expect(ids(await listed("?status=SUCCESS"))).toEqual([succeeded]);
    expect(ids(await listed("?status=FAILED"))).toEqual([failed]);
    expect(ids(await listed("?status=UNKNOWN"))).toEqual([]);
    const succeededAt = (await get(`/api/momo/payouts/${succeeded}`)).body.data.payout.createdAt as string;
    const failedAt = (await get(`/api/momo/payouts/${failed}`)).body.data.payout.createdAt as string;
    expect(ids(await listed(`?from=${encodeURIComponent(failedAt)}`))).toEqual([failed]);
    expect(ids(await listed(`?to=${encodeURIComponent(failedAt)}`))).toEqual([succeeded]);
    expect(ids(await listed(`?from=${encodeURIComponent(succeededAt)}&to=${encodeURIComponent(sentAfter.toISOString())}&status=SUCCESS`))).toEqual([succeeded]);
    expect(ids(await listed(`?from=${encodeURIComponent(new Date(sentAfter.getTime() + 3600_000).toISOString())}`))).toEqual([]);
  });

  it("pages with limit and cursor (limit=1 walks every payout once)", async () => {
    const first = await listed("?limit=1");
    expect(ids(first)).toEqual([failed]);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await listed(`?limit=1&cursor=${first.nextCursor}`);
    expect(ids(second)).toEqual([succeeded]);
    expect(second.nextCursor).toBeNull();
    const filtered = await listed(`?limit=1&status=FAILED`);
    expect(ids(filtered)).toEqual([failed]);
    expect(filtered.nextCursor).toBeNull();
    expect((await listed("?limit=2")).nextCursor).toBeNull();
  });

  it("refuses bad list queries with VALIDATION_ERROR", async () => {
    for (const query of ["?status=CANCELLED", "?status=PAID", "?limit=0", "?limit=101", "?limit=abc", "?cursor=garbage", "?from=yesterday"]) {
      const answer = await get(`/api/momo/payouts${query}`);
      expect(answer.status, query).toBe(422);
      expect(answer.body.error.code, query).toBe("VALIDATION_ERROR");
    }
  });

  it("answers NOT_FOUND for an unknown id", async () => {
    const answer = await get("/api/momo/payouts/00000000-0000-4000-8000-000000000000");
    expect(answer.status).toBe(404);
    expect(answer.body.error.code).toBe("NOT_FOUND");
  });

  it("is FORBIDDEN for customers, list and by id (REST and tRPC)", async () => {
    for (const path of ["/api/momo/payouts", `/api/momo/payouts/${succeeded}`]) {
      const answer = await get(path, customer.accessToken);
      expect(answer.status, path).toBe(403);
      expect(answer.body.error.code).toBe("FORBIDDEN");
      expect(JSON.stringify(answer.body)).not.toContain("254712345678");
    }
    const client = trpcClient(t.url, () => ({ authorization: `Bearer ${customer.accessToken}`, "x-tenant-id": "default" }));
    expect(trpcError(await client.payments.listPayouts.query({}).catch((e: unknown) => e))).toEqual({ code: "FORBIDDEN", httpStatus: 403 });
    expect(trpcError(await client.payments.getPayout.query({ originatorConversationId: succeeded }).catch((e: unknown) => e))).toEqual({ code: "FORBIDDEN", httpStatus: 403 });
  });

  it("shows another tenant's admin nothing: an empty list and NOT_FOUND by id (REST and tRPC)", async () => {
    const list = await restB.get("/api/momo/payouts", foreignAdmin.accessToken);
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual({ payouts: [], nextCursor: null });
    const byId = await restB.get(`/api/momo/payouts/${succeeded}`, foreignAdmin.accessToken);
    expect(byId.status).toBe(404);
    expect(byId.body.error.code).toBe("NOT_FOUND");
    // X-Tenant-ID naming the payout's tenant does not help: the tenant comes from the token.
    const claimed = await t.rest.get(`/api/momo/payouts/${succeeded}`, foreignAdmin.accessToken);
    expect(claimed.status).toBe(401);
    expect(claimed.body.error.code).toBe("INVALID_TOKEN");

    const client = trpcClient(t.url, () => ({ authorization: `Bearer ${foreignAdmin.accessToken}`, "x-tenant-id": shopB }));
    expect((await client.payments.listPayouts.query({})).data).toEqual({ payouts: [], nextCursor: null });
    expect(trpcError(await client.payments.getPayout.query({ originatorConversationId: failed }).catch((e: unknown) => e))).toEqual({ code: "NOT_FOUND", httpStatus: 404 });
  });

  it("serves the same reads on tRPC", async () => {
    const client = trpcClient(t.url, () => ({ authorization: `Bearer ${admin.accessToken}`, "x-tenant-id": "default" }));
    const first = await client.payments.listPayouts.query({ limit: 1 });
    expect(first.data.payouts.map((p) => p.originatorConversationId)).toEqual([failed]);
    const second = await client.payments.listPayouts.query({ limit: 1, cursor: first.data.nextCursor! });
    expect(second.data.payouts.map((p) => p.originatorConversationId)).toEqual([succeeded]);
    expect((await client.payments.listPayouts.query({ status: "FAILED" })).data.payouts.map((p) => p.originatorConversationId)).toEqual([failed]);
    const one = await client.payments.getPayout.query({ originatorConversationId: succeeded });
    expect(one.data.payout).toEqual((await get(`/api/momo/payouts/${succeeded}`)).body.data.payout);
    expect(one.data.payout).toMatchObject({ status: "SUCCESS", resultCode: "0", transactionId: expect.stringMatching(/^[A-Z0-9]{10}$/) });
    expect(trpcError(await client.payments.getPayout.query({ originatorConversationId: "missing" }).catch((e: unknown) => e))).toEqual({ code: "NOT_FOUND", httpStatus: 404 });
  });
});
