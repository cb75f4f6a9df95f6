/**
 * The demo's "shop backend" (apps/demo): what a shop's own server does, in a few routes, so the demo
 * checkout pays a payment intent instead of an amount chosen by the browser. It holds an API key
 * (created once through the admin API) and calls the service over HTTP like any shop's server would:
 * it creates the order's intent, reads it back, and registers the shop's C2B URLs so customers can
 * pay from the M-Pesa menu, or scan the order's QR code (docs/payment-intents.md#pay-by-qr).
 * It runs in test mode (docs/test-mode.md): an order paid by prompt is a test key's intent, paid through
 * the simulated provider. Paying from the menu or by QR is live money only, so an order for those
 * (`pay_with: "menu"`) is its live key's, paid through the dev start's Daraja simulator.
 * `POST /demo/shop/phone/pay` and `/demo/shop/phone/scan` stand in for the customer's phone: they ask
 * the Daraja simulator to pay the paybill from the menu, or to scan the QR code and pay
 * (docs/daraja-simulator.md#c2b, #dynamic-qr).
 *
 * Outside production only, and for local requests only (direct loopback naming a local Host, as the
 * dev outbox): it acts with the admin key on the shop's behalf.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { z } from "zod";
import { isLocalRequest } from "./loopback.js";

export interface DemoShopOptions {
  /** The admin API key in force (the dev start's answers local requests, which these calls to 127.0.0.1 are). */
  adminApiKey: string | undefined;
  /** Where the simulator listens (MOMO_BASE_URL, or the dev start's in-process one). */
  darajaUrl: string | undefined;
  tenantId: string;
  /** The dev start's CAPTCHA stand-in: a token as a solved widget gives it (docs/sign-in.md#captcha); none elsewhere. */
  captchaToken?: (() => string) | undefined;
}

interface ShopAccount {
  /** Its test key (mk_test_…): the orders paid by prompt. */
  testKey: string;
  /** Its live key: the orders paid from the menu or by QR (live money only). */
  liveKey: string;
  /** The paybill the customer pays from the menu; null when C2B could not be registered. */
  paybill: string | null;
}

const orderInput = z.object({ amount: z.number().int().min(1).max(250_000), pay_with: z.enum(["prompt", "menu"]).default("prompt") });
const phoneInput = z.object({ paybill: z.string().regex(/^\d{5,7}$/), account: z.string().min(1).max(20), amount: z.number().int().min(1).max(250_000) });
const scanInput = z.object({ qr_code: z.string().min(1).max(2_000_000) });

/** An order number fit for an intent reference and for typing on a phone: 8 capitals and digits. */
function orderNumber(): string {
  const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
  return `DK${Array.from(randomBytes(6), (byte) => alphabet[byte % alphabet.length]).join("")}`;
}

export const demoShopRoutes: FastifyPluginAsync<DemoShopOptions> = async (app, opts) => {
  const self = () => `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  async function call(method: string, path: string, token: string | undefined, body?: unknown): Promise<{ status: number; body: any }> {
    const response = await fetch(self() + path, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { "content-type": "application/json" } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    try {
      return { status: response.status, body: JSON.parse(text) as unknown };
    } catch {
      return { status: response.status, body: text };
    }
  }

  // The shop's credentials, made on first use (a restart makes a new key; the old ones stay listed).
  let account: Promise<ShopAccount> | undefined;
  const shopAccount = (): Promise<ShopAccount> => {
    account ??= (async () => {
      const keysPath = `/api/v1/admin/tenants/${opts.tenantId}/api-keys`;
      const test = await call("POST", keysPath, opts.adminApiKey, { name: "Demo shop backend (test mode)", mode: "test" });
      const live = await call("POST", keysPath, opts.adminApiKey, { name: "Demo shop backend (menu and QR)", mode: "live" });
      if (test.status !== 201 || live.status !== 201) throw new Error(`the demo shop could not get its API keys (${test.status}, ${live.status})`);
      const registered = await call("POST", `/api/v1/admin/tenants/${opts.tenantId}/c2b/register`, opts.adminApiKey, {});
      if (registered.status !== 200) app.log.warn({ status: registered.status, error: registered.body?.error }, "demo shop: C2B registration failed; paying from the M-Pesa menu is off");
      return { testKey: test.body.data.key as string, liveKey: live.body.data.key as string, paybill: registered.status === 200 ? (registered.body.data.short_code as string) : null };
    })();
    account.catch(() => (account = undefined));
    return account;
  };

  const localOnly = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!isLocalRequest(request)) return reply.callNotFound();
  };
  const send = (reply: FastifyReply, status: number, body: unknown) => reply.code(status).header("cache-control", "no-store").send(body);

  // The checkout asks the shop for an order: the shop fixes the amount in a payment intent.
  app.post("/demo/shop/orders", { onRequest: localOnly }, async (request, reply) => {
    const input = orderInput.safeParse(request.body);
    if (!input.success) return send(reply, 422, { error: "amount must be a whole number of shillings" });
    const shop = await shopAccount();
    const reference = orderNumber();
    const key = input.data.pay_with === "menu" ? shop.liveKey : shop.testKey;
    const created = await call("POST", "/api/v1/payment-intents", key, { amount: input.data.amount, reference, description: "Kikoi towel" });
    if (created.status !== 201) return send(reply, created.status, created.body);
    const { id, amount, livemode } = created.body.data as { id: string; amount: number; livemode: boolean };
    return send(reply, 201, { order_number: reference, intent_id: id, amount, livemode, paybill: shop.paybill });
  });

  // The shop reads its order's intent (a real shop would also be told by its webhook).
  app.get<{ Params: { id: string } }>("/demo/shop/orders/:id", { onRequest: localOnly }, async (request, reply) => {
    const shop = await shopAccount();
    // An order is of one mode: the other key answers 404 for it.
    const path = `/api/v1/payment-intents/${encodeURIComponent(request.params.id)}`;
    let intent = await call("GET", path, shop.testKey);
    if (intent.status === 404) intent = await call("GET", path, shop.liveKey);
    if (intent.status !== 200) return send(reply, intent.status, intent.body);
    const { status, payments } = intent.body.data as { status: string; payments: { channel: string; status: string; mpesa_receipt: string | null }[] };
    const paid = payments.find((payment) => payment.status === "SUCCESS");
    return send(reply, 200, { status, channel: paid?.channel ?? null, receipt: paid?.mpesa_receipt ?? null });
  });

  // The order's QR code, for the customer to scan in the M-Pesa app (the shop asks for it with its key).
  app.get<{ Params: { id: string } }>("/demo/shop/orders/:id/qr", { onRequest: localOnly }, async (request, reply) => {
    const shop = await shopAccount();
    const qr = await call("POST", `/api/v1/payment-intents/${encodeURIComponent(request.params.id)}/qr`, shop.liveKey, { size: 240 });
    if (qr.status !== 200) return send(reply, qr.status, qr.body);
    return send(reply, 200, { qr_code: qr.body.data.qr_code, ref_no: qr.body.data.ref_no });
  });

  // The customer's phone: scans the QR code in the M-Pesa app and pays, through the simulator.
  app.post("/demo/shop/phone/scan", { onRequest: localOnly }, async (request, reply) => {
    const input = scanInput.safeParse(request.body);
    if (!input.success) return send(reply, 422, { error: "qr_code is required" });
    if (!opts.darajaUrl) return send(reply, 503, { error: "M-Pesa is not configured" });
    const response = await fetch(`${opts.darajaUrl}/sim/qr/scan`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ qr_code: input.data.qr_code, phone: "0712345678" }),
    });
    if (response.status !== 200) return send(reply, 502, { error: "the simulated phone could not scan it (is MOMO_BASE_URL the Daraja simulator?)" });
    const paid = (await response.json()) as { status: string; reason: string; trans_id: string };
    return send(reply, 200, { status: paid.status, reason: paid.reason, trans_id: paid.trans_id });
  });

  // The CAPTCHA widget, solved: a token of the dev start's stand-in for the demo to send in X-Captcha-Token.
  app.post("/demo/shop/captcha", { onRequest: localOnly }, async (_request, reply) => {
    if (!opts.captchaToken) return send(reply, 404, { error: "no CAPTCHA stand-in runs here" });
    return send(reply, 200, { token: opts.captchaToken() });
  });

  // The customer's phone: pays the paybill from the M-Pesa menu, through the simulator.
  app.post("/demo/shop/phone/pay", { onRequest: localOnly }, async (request, reply) => {
    const input = phoneInput.safeParse(request.body);
    if (!input.success) return send(reply, 422, { error: "paybill, account and amount are required" });
    if (!opts.darajaUrl) return send(reply, 503, { error: "M-Pesa is not configured" });
    const response = await fetch(`${opts.darajaUrl}/sim/c2b/pay`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ short_code: input.data.paybill, account: input.data.account, amount: input.data.amount, phone: "0712345678" }),
    });
    if (response.status !== 200) return send(reply, 502, { error: "the simulated phone could not pay (is MOMO_BASE_URL the Daraja simulator?)" });
    const paid = (await response.json()) as { status: string; reason: string; trans_id: string };
    return send(reply, 200, { status: paid.status, reason: paid.reason, trans_id: paid.trans_id });
  });
};
