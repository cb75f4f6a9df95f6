/**
 * Money moved through the real HTTP surface and the simulator's callbacks, for tests that need settled
 * rows to read (the daily report): an STK payment by a customer, a B2C payout by an admin.
 */
import { expect } from "vitest";
import type { DarajaApp } from "./daraja.js";
import { waitFor } from "./wait.js";

/** POSTs a money request with a bearer token, then waits until `settled` finds its row settled. */
async function requestUntilSettled<Row>(
  t: DarajaApp,
  request: { path: string; body: object; token: string },
  settled: (data: Record<string, unknown>) => Promise<Row | undefined>,
): Promise<Row> {
  const sent = await t.rest.request("POST", request.path, { body: request.body, token: request.token });
  expect(sent.status, JSON.stringify(sent.body)).toBe(200);
  return waitFor(() => settled(sent.body.data));
}

/** A customer's STK payment, settled (either way) by the simulator's callback. */
export async function settledStkPayment(t: DarajaApp, amount: number, reference: string) {
  const { accessToken: token } = await t.customer();
  const body = { phone: "0712345678", amount, reference };
  return requestUntilSettled(t, { path: "/api/momo/stkpush", body, token }, async (data) => {
    const row = await t.deps.db.unscoped("test").payment.findUniqueOrThrow({ where: { id: String(data["id"]) } });
    return row.status === "PENDING" ? undefined : row;
  });
}

/** An admin's B2C payout, once the simulator's result made it SUCCESS. */
export async function succeededPayout(t: DarajaApp, amount: number, occasion: string) {
  const { accessToken: token } = await t.admin();
  const body = { phone: "0712345678", amount, occasion };
  return requestUntilSettled(t, { path: "/api/momo/b2c", body, token }, async (data) => {
    const where = { originatorConversationId: String(data["originatorConversationId"]) };
    const row = await t.deps.db.unscoped("test").payout.findUniqueOrThrow({ where });
    return row.status === "SUCCESS" ? row : undefined;
  });
}
