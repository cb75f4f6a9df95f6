/**
 * A third party's script, written only from /openapi.json: `openapi-typescript` generated `./api.js`
 * (its `paths` and `webhooks`), `openapi-fetch` makes the calls, `jose` verifies the access token from the JWKS.
 * apps/api/test/openapi-clients.test.ts generates the types, compiles this with `tsc --strict` and
 * runs it, so the REST contract keeps generating working clients as the API grows.
 */
import { createRemoteJWKSet, jwtVerify } from "jose";
import createClient from "openapi-fetch";
import type { paths, webhooks } from "./api.js";

/** A shop's webhook handler, typed from the document's `webhooks`: what a paid order needs from the event. */
type PaymentSucceeded = webhooks["payment.succeeded"]["post"]["requestBody"]["content"]["application/json"];
export function paidOrder(event: PaymentSucceeded): { eventId: string; amount: number; receipt: string | null } {
  return { eventId: event.id, amount: event.data.payment.amount, receipt: event.data.payment.mpesa_receipt };
}

export async function checkout(baseUrl: string, tenantId: string, email: string) {
  const api = createClient<paths>({ baseUrl });
  const tenant = { "x-tenant-id": tenantId };

  const registered = await api.POST("/api/v1/auth/register", {
    params: { header: tenant },
    body: { name: "Achieng Otieno", email, password: "a long passphrase 2026" },
  });
  if (!registered.data) throw new Error(`register: ${registered.response.status} ${registered.error?.error.code}`);
  const token = registered.data.data.access_token;
  const headers = { authorization: `Bearer ${token}` };

  const jwks = createRemoteJWKSet(new URL("/.well-known/jwks.json", baseUrl));
  const verified = await jwtVerify(token, jwks, { issuer: "mteja", audience: "mteja", algorithms: ["ES256"] });

  const me = await api.GET("/api/v1/auth/me", { headers, params: { header: tenant } });
  if (!me.data) throw new Error(`me: ${me.response.status}`);

  const address = await api.POST("/api/v1/addresses", {
    headers,
    body: { label: "Home", recipient_name: me.data.data.name ?? "Achieng Otieno", phone: "0712345678", street: "Moi Avenue 12", county: "nairobi" },
  });
  if (!address.data) throw new Error(`address: ${address.response.status} ${address.error?.error.code}`);

  const paid = await api.POST("/api/momo/stkpush", {
    headers,
    params: { header: { "idempotency-key": `order-${me.data.data.id}` } },
    body: { phone: "0712345678", amount: 100 },
  });
  if (!paid.data) throw new Error(`stkpush: ${paid.response.status} ${paid.error?.error.code}`);

  const refused = await api.POST("/api/v1/auth/login", { params: { header: tenant }, body: { email, password: "not the passphrase" } });
  // The error codes are a union in the generated types: a misspelt code would not compile here.
  const wrongPassword = refused.error?.error.code === "INVALID_CREDENTIALS";

  return {
    token: { sub: verified.payload.sub, alg: verified.protectedHeader.alg, kid: verified.protectedHeader.kid },
    me: { id: me.data.data.id, email: me.data.data.email },
    addressId: address.data.data.address.id,
    payment: { status: paid.response.status, id: paid.data.data.id, paymentStatus: paid.data.data.status, checkoutRequestId: paid.data.data.checkoutRequestId },
    refused: { status: refused.response.status, code: refused.error?.error.code, wrongPassword },
  };
}
