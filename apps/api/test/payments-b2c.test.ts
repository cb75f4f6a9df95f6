/**
 * B2C payouts (admin only): every outcome of the simulator, the UNKNOWN → Transaction Status → settled
 * path, and the "no answer" case on a scripted simulator (UNKNOWN, never re-sent).
 */
import { TRPCClientError } from "@trpc/client";
import { afterAll, describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { adminKey, trpcClient } from "./support/app.js";
import { skipThisTarget } from "./support/database.js";
import { postCallback, type DarajaApp } from "./support/daraja.js";
import type { Simulator } from "./support/simulator.js";
import { waitFor } from "./support/wait.js";

it.override({ darajaOptions: { b2c: true, env: { MOMO_RECONCILE_AFTER_SECONDS: "0" } } });

describe.skipIf(skipThisTarget)("B2C payouts (simulator)", () => {
  let sim: Simulator;
  let t: DarajaApp;
  let admin: { id: string; accessToken: string };
  it.beforeAll(async ({ sim: simulator, momo }) => {
    sim = simulator;
    t = momo;
    admin = await t.admin();
  });

  const payout = (body: Record<string, unknown>, token = admin.accessToken, headers: Record<string, string> = {}) =>
    t.rest.request("POST", "/api/momo/b2c", { body, token, headers });
  const stored = (originatorConversationId: string) => t.deps.db.unscoped("test").payout.findUniqueOrThrow({ where: { originatorConversationId } });
  const settledPayout = (originatorConversationId: string, statuses = ["SUCCESS", "FAILED"]) =>
    waitFor(async () => {
      const row = await stored(originatorConversationId);
      return statuses.includes(row.status) ? row : undefined;
    });

  it("is FORBIDDEN for customers (REST and tRPC); nothing is stored or sent", async () => {
    const customer = await t.customer();
    const rest = await payout({ phone: "0712345678", amount: 100 }, customer.accessToken);
    expect(rest.status).toBe(403);
    expect(rest.body.error.code).toBe("FORBIDDEN");
    const client = trpcClient(t.url, () => ({ authorization: `Bearer ${customer.accessToken}` }));
    const error = await client.payments.b2c.mutate({ phone: "0712345678", amount: 100 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TRPCClientError);
    expect((error as TRPCClientError<any>).shape.error.code).toBe("FORBIDDEN");
    expect((error as TRPCClientError<any>).data.httpStatus).toBe(403);
    expect(await t.deps.db.unscoped("test").payout.count({ where: { requestedBy: customer.id } })).toBe(0);
  });

  it("refuses a demoted admin's access token at once (401 INVALID_TOKEN, REST and tRPC); nothing is stored or sent", async () => {
    const former = await t.admin();
    const demoted = await fetch(`${t.url}/api/v1/admin/users/${former.id}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${adminKey}`, "x-tenant-id": "default", "content-type": "application/json" },
      body: JSON.stringify({ role: null }),
    });
    expect(demoted.status).toBe(200);
    const rest = await payout({ phone: "0712345678", amount: 100 }, former.accessToken);
    expect(rest.status).toBe(401);
    expect(rest.body.error.code).toBe("INVALID_TOKEN");
    const client = trpcClient(t.url, () => ({ authorization: `Bearer ${former.accessToken}` }));
    const error = await client.payments.b2c.mutate({ phone: "0712345678", amount: 100 }).catch((e: unknown) => e);
    expect((error as TRPCClientError<any>).shape.error.code).toBe("INVALID_TOKEN");
    expect((error as TRPCClientError<any>).data.httpStatus).toBe(401);
    expect(await t.deps.db.unscoped("test").payout.count({ where: { requestedBy: former.id } })).toBe(0);
  });

  it("pays out for an admin: PENDING answer, then the result callback settles it SUCCESS", async () => {
    const answer = await payout({ phone: "0712345678", amount: 1500, remarks: "Refund order 7", occasion: "Refund" });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ success: true, data: { status: "PENDING", conversationId: expect.stringMatching(/^AG_/), originatorConversationId: expect.any(String) } });
    const row = await settledPayout(answer.body.data.originatorConversationId);
    expect(row).toMatchObject({ status: "SUCCESS", amount: 1500, phone: "254712345678", commandId: "BusinessPayment", remarks: "Refund order 7", occasion: "Refund", resultCode: "0", requestedBy: admin.id });
    expect(row.transactionId).toMatch(/^[A-Z0-9]{10}$/);
    expect(row.receiverName).toContain("254712345678");
    const sent = (await sim.requests()).requests.filter((r) => r.path === "/mpesa/b2c/v3/paymentrequest").at(-1)!;
    expect(sent.body).toMatchObject({ OriginatorConversationID: row.originatorConversationId, CommandID: "BusinessPayment", Amount: 1500, PartyB: "254712345678", Remarks: "Refund order 7", Occassion: "Refund" });
  });

  it("defaults commandId to BusinessPayment and remarks to 'Payout'; validates its fields", async () => {
    const answer = await payout({ phone: "0712345678", amount: 10, commandId: "SalaryPayment" });
    expect(answer.status).toBe(200);
    expect(await stored(answer.body.data.originatorConversationId)).toMatchObject({ commandId: "SalaryPayment", remarks: "Payout", occasion: null });
    for (const [body, path] of [
      [{ phone: "0712345678", amount: 9 }, "amount"],
      [{ phone: "0712345678", amount: 250_001 }, "amount"],
      [{ phone: "0712345678", amount: 100, commandId: "Payday" }, "commandId"],
      [{ phone: "0712345678", amount: 100, remarks: "x" }, "remarks"],
      [{ phone: "0712345678", amount: 100, occasion: "o".repeat(101) }, "occasion"],
      [{ phone: "12345", amount: 100 }, "phone"],
    ] as const) {
      const invalid = await payout(body);
      expect(invalid.status, JSON.stringify(body)).toBe(422);
      expect(invalid.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
    }
  });

  it.each([
    { amount: 11, status: "FAILED", resultCode: "1" },
    { amount: 15, status: "FAILED", resultCode: "2001" },
  ])("records a failed payout (result $resultCode)", async ({ amount, status, resultCode }) => {
    const answer = await payout({ phone: "0712345678", amount });
    expect(await settledPayout(answer.body.data.originatorConversationId)).toMatchObject({ status, resultCode });
  });

  it("applies a duplicated result once", async () => {
    const answer = await payout({ phone: "0712345678", amount: 14 });
    const ocid = answer.body.data.originatorConversationId;
    await settledPayout(ocid);
    const rows = await waitFor(async () => {
      const found = await t.deps.db.unscoped("test").darajaCallback.findMany({ where: { correlationId: ocid, payoutId: { not: null } } });
      return found.length === 2 ? found : undefined;
    });
    expect(rows.map((r) => r.outcome).sort()).toEqual(["applied", "duplicate"]);
  });

  it("after a timeout callback the payout is UNKNOWN; a Transaction Status query settles it SUCCESS (never re-sent)", async () => {
    const answer = await payout({ phone: "0712345678", amount: 12 });
    const ocid = answer.body.data.originatorConversationId;
    const unknown = await settledPayout(ocid, ["UNKNOWN"]);
    expect(unknown.lastError).toContain("timed out");
    const timeoutRow = await t.deps.db.unscoped("test").darajaCallback.findFirstOrThrow({ where: { correlationId: ocid, kind: "b2c_timeout" } });
    expect(timeoutRow.outcome).toBe("applied");

    const report = await t.reconciler.runOnce();
    expect(report.payoutsQueried).toBeGreaterThanOrEqual(1);
    const settled = await settledPayout(ocid);
    expect(settled).toMatchObject({ status: "SUCCESS", resultCode: "0" });
    expect(settled.transactionId).toMatch(/^[A-Z0-9]{10}$/);
    const log = await sim.requests();
    expect(log.requests.filter((r) => r.path === "/mpesa/b2c/v3/paymentrequest" && r.body.OriginatorConversationID === ocid)).toHaveLength(1);
    expect(log.requests.filter((r) => r.path === "/mpesa/transactionstatus/v1/query" && r.body.OriginatorConversationID === ocid).length).toBeGreaterThanOrEqual(1);
    expect(await t.deps.db.unscoped("test").darajaCallback.findFirstOrThrow({ where: { correlationId: ocid, kind: "b2c_status" } })).toMatchObject({ outcome: "applied" });
  });

  it.each([
    { amount: 16, first: "UNKNOWN", why: "an unrecognised ResultCode" },
    { amount: 13, first: "PENDING", why: "no callback at all" },
  ])("settles a payout left $first by $why through Transaction Status", async ({ amount, first }) => {
    const answer = await payout({ phone: "0712345678", amount });
    const ocid = answer.body.data.originatorConversationId;
    if (first === "UNKNOWN") await settledPayout(ocid, ["UNKNOWN"]);
    else await new Promise((resolve) => setTimeout(resolve, 150));
    await waitFor(async () => {
      await t.reconciler.runOnce();
      const row = await stored(ocid);
      if (row.status === "PENDING" || row.status === "UNKNOWN") {
        // The status query's result arrives by callback; let the next run query again right away.
        await t.deps.db.unscoped("test").payout.update({ where: { id: row.id }, data: { nextStatusQueryAt: new Date(0) } });
        return undefined;
      }
      return row;
    });
    expect((await stored(ocid)).status).toBe("SUCCESS");
  });

  it("answers a keyed retry with the first result (one request at Daraja); a different body is a VALIDATION_ERROR", async () => {
    const headers = { "idempotency-key": `payout-${Date.now()}` };
    const count = async () => (await sim.requests()).requests.filter((r) => r.path === "/mpesa/b2c/v3/paymentrequest").length;
    const before = await count();
    const first = await payout({ phone: "0712345678", amount: 200 }, admin.accessToken, headers);
    const second = await payout({ phone: "0712345678", amount: 200 }, admin.accessToken, headers);
    expect(second.body.data.originatorConversationId).toBe(first.body.data.originatorConversationId);
    expect(second.body.data.conversationId).toBe(first.body.data.conversationId);
    expect(await count()).toBe(before + 1);
    expect((await payout({ phone: "0712345678", amount: 201 }, admin.accessToken, headers)).status).toBe(422);
  });
});

describe.skipIf(skipThisTarget)("B2C when Daraja fails (scripted simulator)", () => {
  let fake: Simulator;
  let t: DarajaApp;
  let admin: { id: string; accessToken: string };
  it.beforeAll(async ({ launch }) => {
    fake = await launch.sim({ callbacks: false });
    t = await launch.momo({ darajaUrl: fake.url, b2c: { securityCredential: Buffer.from("credential").toString("base64") }, env: { MOMO_TIMEOUT_MS: "400" } });
    admin = await t.admin();
  });
  afterAll(async () => {
    expect(fake.violations).toEqual([]);
  });

  const payout = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    t.rest.request("POST", "/api/momo/b2c", { body, token: admin.accessToken, headers });

  it("marks a payout FAILED when Daraja refuses it (502 with Daraja's error)", async () => {
    fake.script("b2c", () => ({ status: 400, body: { requestId: "r", errorCode: "400.002.02", errorMessage: "Bad Request - Invalid PartyB" } }));
    const refused = await payout({ phone: "0712345678", amount: 100 });
    expect(refused.status).toBe(502);
    expect(refused.body.error).toEqual({ code: "PAYMENT_PROVIDER_ERROR", details: [{ errorCode: "400.002.02", errorMessage: "Bad Request - Invalid PartyB" }] });
    const row = await t.deps.db.unscoped("test").payout.findFirstOrThrow({ where: { amount: 100 } });
    expect(row).toMatchObject({ status: "FAILED", conversationId: null, nextStatusQueryAt: null });
  });

  it("marks a payout UNKNOWN when Daraja does not answer in time (202), queries its status instead of re-sending, and settles from the result", async () => {
    fake.script("b2c", async () => {
      await new Promise((resolve) => setTimeout(resolve, 800));
    });
    const headers = { "idempotency-key": "slow-payout" };
    const slow = await payout({ phone: "0712345678", amount: 300 }, headers);
    expect(slow.status).toBe(202);
    expect(slow.body.data).toEqual({ conversationId: null, originatorConversationId: expect.any(String), status: "UNKNOWN" });
    const ocid = slow.body.data.originatorConversationId as string;
    expect(await t.deps.db.unscoped("test").payout.findUniqueOrThrow({ where: { originatorConversationId: ocid } })).toMatchObject({ status: "UNKNOWN", amount: 300 });

    // A keyed retry does not send it again.
    const retry = await payout({ phone: "0712345678", amount: 300 }, headers);
    expect(retry.status).toBe(202);
    expect(retry.body.data).toEqual(slow.body.data);
    expect(fake.count("b2c")).toBe(2);

    const report = await t.reconciler.runOnce();
    expect(report.payoutsQueried).toBe(1);
    const query = fake.received.filter((r) => r.operation === "transactionstatus").at(-1)!;
    expect(query.body).toMatchObject({ OriginatorConversationID: ocid, CommandID: "TransactionStatusQuery", IdentifierType: "4" });
    expect(query.body.ResultURL).toContain("/api/momo/callback/b2c/status?token=");

    const statusResult = {
      Result: {
        ResultType: 0,
        ResultCode: 0,
        ResultDesc: "The service request is processed successfully.",
        OriginatorConversationID: "query-own-id",
        ConversationID: "AG_query_own",
        TransactionID: "SKQ1234567",
        ResultParameters: {
          ResultParameter: [
            { Key: "OriginatorConversationID", Value: ocid },
            { Key: "ConversationID", Value: "AG_20261122_real" },
            { Key: "TransactionStatus", Value: "Completed" },
            { Key: "Amount", Value: 300 },
            { Key: "ReceiptNo", Value: "SKQ1234567" },
          ],
        },
      },
    };
    // A status result for a different amount is flagged, not applied.
    const wrongAmount = structuredClone(statusResult);
    wrongAmount.Result.ResultParameters.ResultParameter[3] = { Key: "Amount", Value: 3000 };
    expect((await postCallback(query.body.ResultURL, wrongAmount)).status).toBe(200);
    expect((await t.deps.db.unscoped("test").payout.findUniqueOrThrow({ where: { originatorConversationId: ocid } })).status).toBe("UNKNOWN");

    expect((await postCallback(query.body.ResultURL, statusResult)).body).toEqual({ ResultCode: 0, ResultDesc: "Accepted" });
    expect(await t.deps.db.unscoped("test").payout.findUniqueOrThrow({ where: { originatorConversationId: ocid } })).toMatchObject({
      status: "SUCCESS",
      transactionId: "SKQ1234567",
      conversationId: "AG_20261122_real",
    });
    const rows = await t.deps.db.unscoped("test").darajaCallback.findMany({ where: { correlationId: ocid, kind: "b2c_status" }, orderBy: { receivedAt: "asc" } });
    expect(rows.map((r) => r.outcome)).toEqual(["flagged", "applied"]);
    // Settled: no further status queries.
    await t.deps.db.unscoped("test").payout.updateMany({ where: { originatorConversationId: ocid }, data: { nextStatusQueryAt: new Date(0) } });
    expect((await t.reconciler.runOnce()).payoutsQueried).toBe(0);
  });
});
