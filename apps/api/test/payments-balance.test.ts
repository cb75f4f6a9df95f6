/**
 * Account balance through HTTP against the simulator (docs/mpesa.md#account-balance): POST
 * /api/v1/admin/tenants/{id}/balance (admin key) stores the request and asks Daraja's Account Balance
 * API, 202 pending; the result arrives at /api/momo/callback/balance/result (a time-out at /timeout,
 * same token rule) and GET /api/v1/admin/tenants/{id}/balance shows the accounts. REST and tRPC.
 */
import { TRPCClientError } from "@trpc/client";
import { describe, expect } from "vitest";
import { adminKey, RestClient, trpcClient } from "./support/app.js";
import { skipThisTarget } from "./support/database.js";
import { it } from "./support/fixture.js";
import { postCallback, tenantToken, type DarajaApp } from "./support/daraja.js";
import { B2C_SHORTCODE, INITIATOR_NAME, type Simulator } from "./support/simulator.js";
import { waitFor } from "./support/wait.js";

it.override({ simOptions: { callbackDelayMs: 50 }, darajaOptions: { b2c: true } });

type Account = { name: string; currency: string } & Record<"current" | "available" | "reserved" | "uncleared", number>;

const asAdmin = { headers: { authorization: `Bearer ${adminKey}` } };

describe.skipIf(skipThisTarget)("account balance", () => {
  let t: DarajaApp;
  let sim: Simulator;
  const admin = () => new RestClient(t.url, "");
  const balancePath = (tenantId: string) => `/api/v1/admin/tenants/${tenantId}/balance`;
  const requestBalance = (tenantId = "default") => admin().request("POST", balancePath(tenantId), asAdmin);
  const latest = (tenantId = "default") => admin().request("GET", balancePath(tenantId), asAdmin);
  const newTenant = async (id: string) => {
    const created = await admin().request("POST", "/api/v1/admin/tenants", { body: { id, name: id }, ...asAdmin });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
  };
  /** The latest request once it is `id` and no longer pending. */
  const settled = (id: string) =>
    waitFor(async () => {
      const answer = await latest();
      return answer.body.data?.id === id && answer.body.data.status !== "pending" ? answer.body.data : undefined;
    });
  const storedCallbacks = (correlationId: string) =>
    t.deps.db.unscoped("test").darajaCallback.findMany({ where: { correlationId }, orderBy: { receivedAt: "asc" } });
  /** A balance request as stored (daraja_requests), with what it asked and what its result said. */
  const requestRow = async (id: string) => {
    const row = await t.deps.db.unscoped("test").darajaRequest.findUniqueOrThrow({ where: { id } });
    const asked = row.request as { shortCode: string };
    const result = row.result as { rawBalance: string | null } | null;
    return { ...row, shortCode: asked.shortCode, rawBalance: result?.rawBalance ?? null };
  };
  const outcomesOf = async (correlationId: string) => (await storedCallbacks(correlationId)).map((c) => c.outcome);
  const accountNamed = (accounts: Account[], name: string) => accounts.find((account) => account.name === name)!;

  it.beforeAll(async ({ momo, sim: simulator }) => {
    t = momo;
    sim = simulator;
  });

  it("answers 404 before the shop ever asked, and for a tenant that does not exist", async () => {
    const never = await latest();
    expect(never.status).toBe(404);
    expect(never.body.error.code).toBe("NOT_FOUND");
    for (const answer of [await requestBalance("no-such-shop"), await latest("no-such-shop")]) {
      expect(answer.status).toBe(404);
      expect(answer.body.error.code).toBe("NOT_FOUND");
    }
  });

  it("asks for the B2C short code's balance (202 pending, stored first); GET shows the result's accounts", async () => {
    let storedFirst = false;
    sim.script("accountbalance", async () => {
      const where = { tenantId: "default", flow: "balance", status: "pending" };
      storedFirst = (await t.deps.db.unscoped("test").darajaRequest.findFirst({ where })) !== null;
    });
    const asked = await requestBalance();
    expect(asked.status, JSON.stringify(asked.body)).toBe(202);
    expect(asked.body.data).toEqual({ id: expect.any(String), status: "pending", requested_at: expect.any(String) });
    expect(storedFirst).toBe(true);

    const sent = sim.received.filter((r) => r.operation === "accountbalance").at(-1)!;
    const asSent = { Initiator: INITIATOR_NAME, CommandID: "AccountBalance", PartyA: B2C_SHORTCODE };
    expect(sent.body.IdentifierType).toBe("4");
    expect(sent.body).toMatchObject(asSent);
    const resultUrl = new URL(sent.body.ResultURL);
    expect(resultUrl.pathname).toBe("/api/momo/callback/balance/result");
    expect(resultUrl.searchParams.get("token")).toBe(tenantToken("default"));
    expect(new URL(sent.body.QueueTimeOutURL).pathname).toBe("/api/momo/callback/balance/timeout");
    expect(sim.violations).toEqual([]);

    const balance = await settled(asked.body.data.id);
    const processed = "The service request is processed successfully.";
    expect(balance).toMatchObject({ id: asked.body.data.id, status: "succeeded", result_desc: processed });
    expect(balance.requested_at).toBe(asked.body.data.requested_at);
    expect(balance.accounts.map((account: Account) => account.name)).toEqual([
      "Working Account",
      "Float Account",
      "Utility Account",
      "Charges Paid Account",
      "Organization Settlement Account",
    ]);
    const charges = { current: -1980, available: -1980, reserved: 0, uncleared: 0 };
    expect(balance.accounts).toContainEqual({ name: "Charges Paid Account", currency: "KES", ...charges });
    const utility = accountNamed(balance.accounts, "Utility Account");
    expect(utility).toMatchObject({ currency: "KES", reserved: 0, uncleared: 0 });
    expect(utility.available).toBe(utility.current);

    const row = await requestRow(asked.body.data.id);
    const rawBalance = expect.stringContaining("Utility Account|KES|");
    const live = { livemode: true, flow: "balance" };
    expect(row).toMatchObject({ ...live, shortCode: B2C_SHORTCODE, status: "succeeded", resultCode: "0", rawBalance });
    const stored = await storedCallbacks(row.originatorConversationId!);
    expect(stored).toMatchObject([{ kind: "balance_result", outcome: "applied", paymentId: null, payoutId: null }]);
  });

  it("shows a payout in the next balance (the simulator's Utility Account moves with it)", async () => {
    const before = await settled((await requestBalance()).body.data.id);
    const adminUser = await t.admin();
    const body = { phone: "0712345678", amount: 120 };
    const payout = await t.rest.request("POST", "/api/momo/b2c", { body, token: adminUser.accessToken });
    expect(payout.status, JSON.stringify(payout.body)).toBe(200);
    const where = { originatorConversationId: payout.body.data.originatorConversationId as string };
    await waitFor(async () => (await t.deps.db.unscoped("test").payout.findFirstOrThrow({ where })).status === "SUCCESS");
    const after = await settled((await requestBalance()).body.data.id);
    const utilityOf = (balance: { accounts: Account[] }) => accountNamed(balance.accounts, "Utility Account").available;
    expect(utilityOf(after)).toBeCloseTo(utilityOf(before) - 120, 2);
  });

  it("works the same over tRPC (balance.request, balance.latest); without the admin key it is refused", async () => {
    const operator = trpcClient(t.url, () => ({ authorization: `Bearer ${adminKey}` }));
    const asked = await operator.balance.request.mutate({ id: "default" });
    expect(asked.data.status).toBe("pending");
    const balance = await waitFor(async () => {
      const current = (await operator.balance.latest.query({ id: "default" })).data;
      return current.id === asked.data.id && current.status === "succeeded" ? current : undefined;
    });
    expect(balance.accounts.length).toBe(5);

    const stranger = trpcClient(t.url, () => ({}));
    const refused = await stranger.balance.latest.query({ id: "default" }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TRPCClientError);
    expect((refused as TRPCClientError<any>).shape.error.code).toBe("AUTH_REQUIRED");
    expect((await admin().request("POST", balancePath("default"))).status).toBe(401);
  });

  it("fails on a time-out notice; a second copy of a result is a duplicate that changes nothing", async () => {
    await sim.nextOutcome("timeout", { api: "balance" });
    const timedOut = await requestBalance();
    const failed = { status: "failed", accounts: [], result_desc: "The service request timed out." };
    expect(await settled(timedOut.body.data.id)).toMatchObject(failed);
    const timedOutRow = await requestRow(timedOut.body.data.id);
    const stored = await storedCallbacks(timedOutRow.originatorConversationId!);
    expect(stored).toMatchObject([{ kind: "balance_timeout", outcome: "applied" }]);

    await sim.nextOutcome("duplicate_callback", { api: "balance" });
    const twice = await requestBalance();
    const row = await waitFor(async () => {
      const current = await requestRow(twice.body.data.id);
      if (current.status !== "succeeded") return undefined;
      // Both copies stored and each decided: a copy is stored as `accepted` before it is applied.
      const copies = await storedCallbacks(current.originatorConversationId!);
      return copies.length === 2 && copies.every((copy) => copy.outcome !== "accepted") ? current : undefined;
    });
    expect(await outcomesOf(row.originatorConversationId!)).toEqual(["applied", "duplicate"]);
  });

  it("takes a result by the shop's token only (none or another shop's: 403); Daraja's failure fails it", async () => {
    await sim.nextOutcome("no_callback", { api: "balance" });
    const asked = await requestBalance();
    const row = await waitFor(async () => {
      const current = await requestRow(asked.body.data.id);
      return current.originatorConversationId !== null ? current : undefined;
    });
    const failure = {
      Result: {
        ResultType: 0,
        ResultCode: 2001,
        ResultDesc: "The initiator information is invalid.",
        OriginatorConversationID: row.originatorConversationId,
        ConversationID: row.conversationId,
        TransactionID: "OA90000000",
      },
    };
    await newTenant("duka-ya-pili");

    expect((await postCallback(t.callbackUrl("balance/result", null), failure)).status).toBe(403);
    const foreign = await postCallback(t.callbackUrl("balance/result", undefined, "duka-ya-pili"), failure);
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.code).toBe("FORBIDDEN");
    expect((await requestRow(row.id)).status).toBe("pending");

    const accepted = await postCallback(t.callbackUrl("balance/result"), failure);
    expect(accepted).toEqual({ status: 200, body: { ResultCode: 0, ResultDesc: "Accepted" } });
    const failed = { id: row.id, status: "failed", accounts: [], result_desc: "The initiator information is invalid." };
    expect((await latest()).body.data).toMatchObject(failed);
    expect(await outcomesOf(row.originatorConversationId!)).toEqual(["rejected", "applied"]);
  });

  it("fails with 502 when Daraja refuses; a gateway page leaves it pending and its result settles it", async () => {
    const refusal = { requestId: "r", errorCode: "400.002.02", errorMessage: "Bad Request - Invalid PartyA" };
    sim.script("accountbalance", () => ({ status: 400, body: refusal }));
    const refused = await requestBalance();
    expect(refused.status).toBe(502);
    const details = [{ errorCode: "400.002.02", errorMessage: "Bad Request - Invalid PartyA" }];
    expect(refused.body.error).toEqual({ code: "PAYMENT_PROVIDER_ERROR", details });
    const reason = "provider error 400.002.02: Bad Request - Invalid PartyA";
    expect((await latest()).body.data).toMatchObject({ status: "failed", result_desc: reason });

    const page = "<html><body>502 Bad Gateway</body></html>";
    sim.script("accountbalance", () => ({ status: 502, headers: { "content-type": "text/html" }, body: page }));
    const unknown = await requestBalance();
    expect(unknown.status, JSON.stringify(unknown.body)).toBe(202);
    // Daraja's ids never reached the row: its result is matched as the shop's latest pending request.
    expect((await settled(unknown.body.data.id)).status).toBe("succeeded");
    expect((await requestRow(unknown.body.data.id)).originatorConversationId).not.toBeNull();
  });

  it("never shows another shop's request nor one of test mode, however recent (daraja_requests)", async () => {
    const own = await settled((await requestBalance()).body.data.id);
    const recent = new Date("2099-01-01T00:00:00Z");
    const stored = { flow: "balance", status: "succeeded", request: { shortCode: "000000" }, result: { accounts: [] } };
    const row = { ...stored, requestedAt: recent, updatedAt: recent };
    const db = t.deps.db.unscoped("test");
    const testMode = await db.darajaRequest.create({ data: { ...row, tenantId: "default", livemode: false } });
    await newTenant("duka-jirani");
    const neighbours = await db.darajaRequest.create({ data: { ...row, tenantId: "duka-jirani" } });

    expect((await latest()).body.data).toMatchObject({ id: own.id, status: own.status });
    expect((await latest("duka-jirani")).body.data.id).toBe(neighbours.id);
    await db.darajaRequest.deleteMany({ where: { id: { in: [testMode.id, neighbours.id] } } });
  });

  it("answers 503 for a shop without a B2C initiator, as payouts do", async () => {
    await newTenant("duka-bila-b2c");
    const refused = await requestBalance("duka-bila-b2c");
    expect(refused.status).toBe(503);
    expect(refused.body.error.code).toBe("PAYMENT_PROVIDER_UNAVAILABLE");
    expect(await t.deps.db.unscoped("test").darajaRequest.count({ where: { tenantId: "duka-bila-b2c" } })).toBe(0);
  });
});

describe.skipIf(skipThisTarget)("account balance without M-Pesa", () => {
  it("answers 503 PAYMENT_PROVIDER_UNAVAILABLE", async ({ app }) => {
    const refused = await new RestClient(app.url, "").request("POST", "/api/v1/admin/tenants/default/balance", asAdmin);
    expect(refused.status).toBe(503);
    expect(refused.body.error.code).toBe("PAYMENT_PROVIDER_UNAVAILABLE");
  });
});
