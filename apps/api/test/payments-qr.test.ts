/**
 * Pay by QR through HTTP against the simulator (docs/payment-intents.md#pay-by-qr): POST
 * /api/v1/payment-intents/{id}/qr (API key) asks Daraja's Dynamic QR API for a paybill code of the intent's
 * amount and reference; a customer scanning it pays the paybill (the simulator's /sim/qr/scan), the C2B
 * confirmation arrives and pays the intent. A shop paid through a till only: 422; an intent that is not
 * waiting for payment: 409. REST and tRPC.
 */
import { readPng } from "@mteja/simulated-daraja";
import { TRPCClientError } from "@trpc/client";
import { afterAll, describe, expect } from "vitest";
import { trpcClient } from "./support/app.js";
import { skipThisTarget } from "./support/database.js";
import { it } from "./support/fixture.js";
import { shopBackend } from "./support/shop-backend.js";
import type { DarajaApp } from "./support/daraja.js";
import { SHORTCODE, type Simulator } from "./support/simulator.js";
import { waitFor } from "./support/wait.js";


it.override({ darajaOptions: { env: { RATE_LIMITS: "off" } } });

describe.skipIf(skipThisTarget)("Pay by QR", () => {
  let t: DarajaApp;
  let sim: Simulator;
  let key: string;
  const { admin, server, apiKeyOf, createIntent } = shopBackend("QR", () => ({ url: t.url, key }));
  const qrOf = (intentId: string, body: unknown = {}, apiKey = key) => server("POST", `/api/v1/payment-intents/${intentId}/qr`, body, apiKey);

  it.beforeAll(async ({ momo, sim: simulator }) => {
    t = momo;
    sim = simulator;
    key = await apiKeyOf("default");
    expect((await admin("POST", "/api/v1/admin/tenants/default/c2b/register", {})).status).toBe(200);
  });
  afterAll(() => {
    expect(sim.violations).toEqual([]);
  });

  it("answers the intent's paybill QR code (a PNG of the size asked) from the exact Dynamic QR body; a scan pays the intent", async () => {
    const intent = await createIntent(1250);
    const answer = await qrOf(intent.id, { size: 240 });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.data).toEqual({ qr_code: expect.any(String), ref_no: intent.reference, amount: 1250, trx_code: "PB" });
    expect(readPng(Buffer.from(answer.body.data.qr_code, "base64"))).toMatchObject({ width: 240, height: 240 });
    const sent = sim.received.filter((request) => request.operation === "qrcode").at(-1)!;
    expect(sent.body).toEqual({ MerchantName: "Mteja Shop", RefNo: intent.reference, Amount: 1250, TrxCode: "PB", CPI: SHORTCODE, Size: "240" });

    const scanned = await sim.qrScan({ qr_code: answer.body.data.qr_code });
    expect(scanned).toMatchObject({ status: "completed", qr: { refNo: intent.reference, amount: 1250, cpi: SHORTCODE } });
    const paid = await waitFor(async () => {
      const current = (await server("GET", `/api/v1/payment-intents/${intent.id}`)).body.data;
      return current.status === "succeeded" ? current : undefined;
    });
    expect(paid.payments).toMatchObject([{ channel: "c2b", status: "SUCCESS", amount: 1250, trans_id: scanned.trans_id }]);

    const defaultSize = await qrOf((await createIntent(10)).id);
    expect(defaultSize.status).toBe(200);
    expect(sim.received.filter((request) => request.operation === "qrcode").at(-1)!.body.Size).toBe("300");
  });

  it("answers 409 INTENT_NOT_PAYABLE for an intent that is not waiting for payment, and 404 for an intent the shop does not have", async () => {
    const cancelled = await createIntent(300);
    expect((await server("POST", `/api/v1/payment-intents/${cancelled.id}/cancel`)).status).toBe(200);
    const refused = await qrOf(cancelled.id);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("INTENT_NOT_PAYABLE");
    expect((await qrOf("pi_doesnotexist")).status).toBe(404);
    const tooSmall = await qrOf((await createIntent(300)).id, { size: 50 });
    expect(tooSmall.status).toBe(422);
    expect(tooSmall.body.error.details).toMatchObject([{ path: "size" }]);
  });

  it("answers 422 for a shop paid through a till only (a till payment carries no reference), asking Daraja nothing", async () => {
    const shop = await admin("POST", "/api/v1/admin/tenants", {
      id: "till-shop",
      name: "Till shop",
      settings: { momo: { transactionType: "CustomerBuyGoodsOnline", tillNumber: "5123456" } },
    });
    expect(shop.status, JSON.stringify(shop.body)).toBe(200);
    const tillKey = await apiKeyOf("till-shop");
    const intent = await createIntent(500, tillKey);
    const before = sim.count("qrcode");
    const refused = await qrOf(intent.id, {}, tillKey);
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({ code: "VALIDATION_ERROR", details: [{ path: "settings.momo.transactionType" }] });
    expect(sim.count("qrcode")).toBe(before);
  });

  it("works over tRPC (qr.intent); a customer's token is refused", async () => {
    const intent = await createIntent(75);
    const shop = trpcClient(t.url, () => ({ authorization: `Bearer ${key}` }));
    const answer = await shop.qr.intent.mutate({ id: intent.id, size: 120 });
    expect(answer.data).toMatchObject({ ref_no: intent.reference, amount: 75, trx_code: "PB" });
    const customer = await t.customer();
    const refused = await trpcClient(t.url, () => ({ authorization: `Bearer ${customer.accessToken}` }))
      .qr.intent.mutate({ id: intent.id })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TRPCClientError);
    expect((refused as TRPCClientError<any>).shape.error.code).toBe("FORBIDDEN");
  });
});
