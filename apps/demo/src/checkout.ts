/**
 * Checkout: deliver to one of the customer's addresses; the shop's backend makes the order a payment
 * intent (its amount is the shop's); pay it with an M-Pesa prompt (payments.stkPush { intent_id }) and
 * watch the payment's status change live (the payments.onStatus subscription, over SSE), or pay it
 * from the M-Pesa menu (paybill + the order number as account) and watch the order settle.
 */
import type { MtejaClient } from "@mteja/client";
import type { AddressSummary } from "./addresses.js";
import type { Screen, Shell } from "./shell.js";
import { createOrder, payFromPhone, readOrder, type Order } from "./shop.js";
import { button, describeError, field, h, notice, onSubmit } from "./ui.js";

type Api = MtejaClient["api"];
type Payment = Awaited<ReturnType<Api["payments"]["get"]["query"]>>["data"]["payment"];

const terminal = new Set(["SUCCESS", "CANCELLED", "FAILED", "TIMEOUT"]);

/** What the Daraja simulator does with each amount (docs/daraja-simulator.md). */
const simulatorAmounts: [string, string][] = [
  ["1, 10, 100…", "paid (SUCCESS)"],
  ["2", "cancelled by the customer"],
  ["3", "customer unreachable (TIMEOUT)"],
  ["4", "insufficient funds (FAILED)"],
  ["5", "wrong PIN (FAILED)"],
];

export const checkoutScreen: Screen = (shell, signal) => {
  const status = notice();
  const formCard = h("article", { class: "card" }, h("h2", {}, "Checkout"), h("p", { class: "muted" }, "Loading your addresses…"));
  const progress = h("article", { class: "card", id: "payment", hidden: true });
  const api = shell.mteja.api.addresses;
  // Both in one HTTP request (the client batches calls made together).
  Promise.all([api.list.query(), api.counties.query()])
    .then(([list, counties]) => {
      const names = new Map(counties.data.counties.map((county) => [county.canonical, county.name]));
      const addresses = list.data.addresses.map((address) => ({ ...address, county: names.get(address.county) ?? address.county }));
      formCard.replaceChildren(h("h2", {}, "Checkout"), ...checkoutForm(shell, addresses, progress, signal));
    })
    .catch((error: unknown) => status.show("error", describeError(error)));
  return h("section", { class: "grid" }, h("div", {}, formCard, status), progress);
};

function checkoutForm(shell: Shell, addresses: AddressSummary[], progress: HTMLElement, signal: AbortSignal): Node[] {
  if (addresses.length === 0) {
    return [h("p", {}, "Add a delivery address first: ", h("a", { href: "#addresses" }, "addresses"), ".")];
  }
  const status = notice();
  const chosen = addresses.find((address) => address.is_default) ?? addresses[0]!;
  const total = h("span", {}, "KES 1");
  const form = h(
    "form",
    { id: "checkout-form" },
    h("div", { class: "order" }, h("span", {}, "1 × Kikoi beach towel"), total),
    h(
      "label",
      {},
      h("span", {}, "Deliver to"),
      h("select", { name: "address" }, ...addresses.map((address) => h("option", { value: address.id, selected: address.id === chosen.id }, `${address.label} — ${address.street}, ${address.county}`))),
    ),
    field("M-Pesa phone", "phone", { type: "tel", required: true, value: chosen.phone }),
    field("Amount (KES)", "amount", { type: "number", required: true, min: 1, step: 1, value: 1 }),
    h("button", { type: "submit" }, "Pay with M-Pesa"),
    h("button", { type: "button", id: "pay-from-menu", class: "secondary" }, "Pay from the M-Pesa menu"),
    h(
      "details",
      {},
      h("summary", {}, "Amounts the Daraja simulator understands"),
      h("table", {}, ...simulatorAmounts.map(([amount, outcome]) => h("tr", {}, h("td", {}, amount), h("td", {}, outcome)))),
    ),
  );
  form.addEventListener("input", () => (total.textContent = `KES ${form.querySelector<HTMLInputElement>("input[name=amount]")!.value || "0"}`));
  // The payment on screen: a new one replaces it (and ends its subscription).
  let following: AbortController | undefined;
  signal.addEventListener("abort", () => following?.abort(), { once: true });
  onSubmit(form, status, async ({ phone = "", amount = "" }) => {
    // The shop's backend fixes what is owed; the browser only names the intent it pays.
    const order = await createOrder(Number(amount));
    const { data } = await shell.mteja.api.payments.stkPush.mutate({ phone, intent_id: order.intent_id });
    following?.abort();
    // 202: M-Pesa's answer proved nothing; the prompt may still be on the phone (its callback settles it).
    if (data.checkoutRequestId === null) return "M-Pesa did not confirm the prompt. If one reaches your phone, you may pay it; do not pay twice.";
    following = new AbortController();
    follow(shell, data.checkoutRequestId, data.customerMessage ?? "", progress, following.signal);
    return `Order ${order.order_number}. Check your phone: enter your M-Pesa PIN to pay.`;
  });
  const menuButton = form.querySelector<HTMLButtonElement>("#pay-from-menu")!;
  menuButton.addEventListener("click", () => {
    menuButton.disabled = true;
    status.clear();
    const amount = Number(form.querySelector<HTMLInputElement>("input[name=amount]")!.value);
    createOrder(amount)
      .then((order) => {
        following?.abort();
        following = new AbortController();
        showMenuPayment(order, progress, following.signal);
        status.show("ok", `Order ${order.order_number}: pay it from the M-Pesa menu.`);
      })
      .catch((error: unknown) => status.show("error", describeError(error)))
      .finally(() => (menuButton.disabled = false));
  });
  return [form, status];
}

/** Paybill and order number to type in the M-Pesa menu; the order's status as the shop sees it, until paid. */
function showMenuPayment(order: Order, progress: HTMLElement, signal: AbortSignal): void {
  const badge = h("output", { id: "order-status", class: "status", "data-status": "requires_payment" }, "requires_payment");
  const receipt = h("div", {});
  const phoneStatus = notice();
  progress.hidden = false;
  if (!order.paybill) {
    progress.replaceChildren(h("h2", {}, "Pay from the M-Pesa menu"), h("p", { class: "notice error" }, "Paying from the M-Pesa menu is not set up for this shop."));
    return;
  }
  const phone = button("Pay it on the simulated phone", phoneStatus, async () => {
    const paid = await payFromPhone(order);
    return paid.status === "completed" ? `The phone paid: M-Pesa sent ${paid.trans_id}.` : `M-Pesa cancelled the payment (${paid.reason}).`;
  }, { id: "simulated-phone" });
  progress.replaceChildren(
    h("h2", {}, "Pay from the M-Pesa menu"),
    h(
      "ol",
      { class: "steps" },
      h("li", {}, "Open M-Pesa → Lipa na M-Pesa → Pay Bill."),
      h("li", {}, "Business number: ", h("code", { id: "menu-paybill" }, order.paybill)),
      h("li", {}, "Account number (your order number): ", h("code", { id: "menu-account" }, order.order_number)),
      h("li", {}, `Amount: KES ${order.amount}, then your PIN.`),
    ),
    h("p", {}, "Order status: ", badge),
    h("p", { class: "muted" }, "No phone at hand? The Daraja simulator pays it for you:"),
    phone,
    phoneStatus,
    receipt,
  );
  // The shop learns of the payment from M-Pesa's confirmation; the page asks the shop until it knows.
  const poll = async () => {
    while (!signal.aborted) {
      try {
        const state = await readOrder(order.intent_id);
        badge.textContent = state.status;
        badge.dataset.status = state.status;
        if (state.status === "succeeded") {
          receipt.replaceChildren(h("p", { class: "receipt" }, `Paid from the M-Pesa menu. M-Pesa receipt `, h("code", { id: "order-receipt" }, state.receipt ?? "—"), "."));
          return;
        }
        if (state.status === "cancelled" || state.status === "expired") return;
      } catch (error) {
        phoneStatus.show("error", describeError(error));
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  };
  void poll();
}

/** Shows the payment's status as the subscription reports it, until it is terminal. */
function follow(shell: Shell, checkoutRequestId: string, customerMessage: string, progress: HTMLElement, signal: AbortSignal): void {
  const badge = h("output", { id: "payment-status", class: "status", "data-status": "PENDING" }, "PENDING");
  const log = h("ol", { class: "log" }, h("li", {}, `${time()} prompt sent: ${customerMessage}`));
  const receipt = h("div", {});
  progress.hidden = false;
  progress.replaceChildren(h("h2", {}, "Payment"), h("p", {}, "Status: ", badge), h("p", { class: "muted" }, "CheckoutRequestID ", h("code", {}, checkoutRequestId)), log, receipt);

  const subscription = shell.mteja.api.payments.onStatus.subscribe(
    { checkoutRequestId },
    {
      onData(update) {
        badge.textContent = update.status;
        badge.dataset.status = update.status;
        log.append(h("li", {}, `${time()} ${update.status}${update.resultDesc ? ` — ${update.resultDesc}` : ""}${update.resultCode ? ` (ResultCode ${update.resultCode})` : ""}`));
        if (terminal.has(update.status)) {
          subscription.unsubscribe();
          if (update.status === "SUCCESS") void showReceipt(shell, checkoutRequestId, receipt);
        }
      },
      onError(error) {
        log.append(h("li", { class: "error" }, `${time()} ${describeError(error)}`));
      },
    },
  );
  signal.addEventListener("abort", () => subscription.unsubscribe(), { once: true });
}

async function showReceipt(shell: Shell, checkoutRequestId: string, receipt: HTMLElement): Promise<void> {
  try {
    const { data } = await shell.mteja.api.payments.get.query({ checkoutRequestId });
    const payment: Payment = data.payment;
    receipt.replaceChildren(
      h("p", { class: "receipt" }, `Paid KES ${payment.paidAmount ?? payment.amount} from ${payment.phone}. M-Pesa receipt `, h("code", { id: "mpesa-receipt" }, payment.mpesaReceipt ?? "—"), "."),
    );
  } catch (error) {
    receipt.replaceChildren(h("p", { class: "notice error" }, describeError(error)));
  }
}

function time(): string {
  return new Date().toLocaleTimeString();
}
