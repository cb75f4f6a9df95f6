/**
 * The demo shop's own backend (served beside the demo, apps/api/src/http/demo-shop.ts): it creates the
 * order's payment intent with its API key, so the amount is the shop's, not the browser's; reads the
 * order back; asks for the order's QR code; and, in the demo, plays the customer's phone paying the
 * paybill from the M-Pesa menu or scanning the QR code.
 */
export interface Order {
  order_number: string;
  intent_id: string;
  amount: number;
  /** false: a test-mode order (paid by prompt through the simulated provider); true: a live one (menu, QR). */
  livemode: boolean;
  /** The paybill to pay from the M-Pesa menu; null when C2B is not registered. */
  paybill: string | null;
}

export interface OrderState {
  status: string;
  channel: "stk" | "c2b" | null;
  receipt: string | null;
}

async function shopCall<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(path, {
    method,
    headers: body !== undefined ? { "content-type": "application/json" } : {},
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const answer = (await response.json().catch(() => ({}))) as { error?: string | { code?: string }; message?: string };
  if (!response.ok) {
    const error = typeof answer.error === "string" ? answer.error : `${answer.error?.code ?? response.status} — ${answer.message ?? "the shop could not do it"}`;
    throw new Error(error);
  }
  return answer as T;
}

/** An order paid by prompt is test mode's; one paid from the menu or by QR live money's (docs/test-mode.md). */
export const createOrder = (amount: number, payWith: "prompt" | "menu" = "prompt") =>
  shopCall<Order>("POST", "/demo/shop/orders", { amount, pay_with: payWith });
export const readOrder = (intentId: string) => shopCall<OrderState>("GET", `/demo/shop/orders/${encodeURIComponent(intentId)}`);
export const payFromPhone = (order: Order) =>
  shopCall<{ status: string; reason: string; trans_id: string }>("POST", "/demo/shop/phone/pay", { paybill: order.paybill, account: order.order_number, amount: order.amount });
export const orderQr = (intentId: string) => shopCall<{ qr_code: string; ref_no: string }>("GET", `/demo/shop/orders/${encodeURIComponent(intentId)}/qr`);
export const scanWithPhone = (qrCode: string) =>
  shopCall<{ status: string; reason: string; trans_id: string }>("POST", "/demo/shop/phone/scan", { qr_code: qrCode });
