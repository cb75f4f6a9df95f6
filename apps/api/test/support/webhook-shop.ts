/** A shop of a momo test app as its backend sees it: its API key, its webhook endpoints, its customers' payments. */
import { expect } from "vitest";
import { adminKey, registerUser, RestClient } from "./app.js";
import type { DarajaApp } from "./daraja.js";
import { waitFor } from "./wait.js";

export async function createApiKey(url: string, tenantId: string): Promise<string> {
  const res = await new RestClient(url, "").request("POST", `/api/v1/admin/tenants/${tenantId}/api-keys`, { body: { name: "Shop backend" }, headers: { authorization: `Bearer ${adminKey}` } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.key as string;
}

/** A shop of the momo app: its API key, its endpoints and its customers' payments. */
export function shopOf(t: DarajaApp, tenantId: string, key: string) {
  const call = (method: string, path: string, body?: unknown) => new RestClient(t.url, "").request(method, path, { ...(body !== undefined ? { body } : {}), token: key });
  return {
    call,
    async addEndpoint(url: string, events?: string[]): Promise<string> {
      const res = await call("POST", "/api/v1/webhook-endpoints", { url, ...(events ? { events } : {}) });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.data.id as string;
    },
    /** A customer of the shop pays 1 shilling through the simulator; answers the payment's id once it succeeded (its event is written). */
    async pay(): Promise<string> {
      const rest = new RestClient(t.url, tenantId);
      const user = await registerUser(rest);
      const pushed = await rest.request("POST", "/api/momo/stkpush", { body: { phone: "0712345678", amount: 1 }, token: user.accessToken });
      expect(pushed.status, JSON.stringify(pushed.body)).toBe(200);
      const checkoutRequestId = pushed.body.data.checkoutRequestId as string;
      const payment = await waitFor(async () => {
        const row = await t.deps.db.unscoped("test").payment.findUnique({ where: { checkoutRequestId } });
        return row?.status === "SUCCESS" ? row : undefined;
      });
      return payment.id;
    },
    async eventOf(paymentId: string): Promise<string> {
      const res = await call("GET", "/api/v1/webhook-events?limit=100");
      const event = res.body.data.webhook_events.find((e: { data: { payment?: { id: string } } }) => e.data.payment?.id === paymentId);
      expect(event, `event of payment ${paymentId}`).toBeDefined();
      return event.id as string;
    },
  };
}
