/**
 * A shop's backend as the payment-intent tests drive it (C2B, QR): the operator's admin API by the admin
 * key, the shop's own calls by its API key, an API key for a tenant, and intents with fresh references.
 */
import { expect } from "vitest";
import { adminKey, RestClient } from "./app.js";

/** `current()`: the app's URL and the API key a call uses unless it names another (both set in beforeAll). */
export function shopBackend(referencePrefix: string, current: () => { url: string; key: string }) {
  let counter = 0;
  const newReference = () => `${referencePrefix}${Date.now().toString(36).slice(-5)}${(counter += 1)}`.slice(0, 12);
  const withBody = (body: unknown) => (body !== undefined ? { body } : {});
  const admin = (method: string, path: string, body?: unknown) =>
    new RestClient(current().url, "").request(method, path, {
      ...withBody(body),
      headers: { authorization: `Bearer ${adminKey}` },
    });
  const server = (method: string, path: string, body?: unknown, apiKey = current().key) =>
    new RestClient(current().url, "").request(method, path, { ...withBody(body), token: apiKey });
  async function apiKeyOf(tenantId: string): Promise<string> {
    const created = await admin("POST", `/api/v1/admin/tenants/${tenantId}/api-keys`, { name: "Shop backend" });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.data.key;
  }
  async function createIntent(amount: number, apiKey = current().key) {
    const created = await server("POST", "/api/v1/payment-intents", { amount, reference: newReference() }, apiKey);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.data as { id: string; reference: string; amount: number };
  }
  return { newReference, admin, server, apiKeyOf, createIntent };
}
