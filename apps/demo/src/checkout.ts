/**
 * Checkout: deliver to one of the customer's addresses; the shop's backend makes the order a payment
 * intent (its amount is the shop's); pay it with an M-Pesa prompt (payments.stkPush { intent_id }) and
 * watch the payment's status change live (the payments.onStatus subscription, over SSE), or pay it
 * from the M-Pesa menu (paybill + the order number as account) or by scanning its QR code in the M-Pesa
 * app (docs/payment-intents.md#pay-by-qr), and watch the order settle.
 */
import type { MtejaClient } from "@mteja/client";
import type { AddressSummary } from "./addresses.js";
import type { Screen, Shell } from "./shell.js";
import { createOrder, orderQr, payFromPhone, readOrder, scanWithPhone, type Order } from "./shop.js";
import { button, describeError, field, h, notice, onSubmit } from "./ui.js";
import { money, t, type TextKey } from "./text.js";
import { saveDetailsOffer } from "./guest.js";

type Api = MtejaClient["api"];
type Payment = Awaited<ReturnType<Api["payments"]["get"]["query"]>>["data"]["payment"];

const terminal = new Set(["SUCCESS", "CANCELLED", "FAILED", "TIMEOUT"]);

/** What the Daraja simulator does with each amount (docs/daraja-simulator.md). */
const simulatorAmounts: [string, TextKey][] = [
  ["1, 10, 100…", "checkout.sim.paid"],
  ["2", "checkout.sim.cancelled"],
  ["3", "checkout.sim.timeout"],
  ["4", "checkout.sim.funds"],
  ["5", "checkout.sim.pin"],
];

export const checkoutScreen: Screen = (shell, signal) => {
  const status = notice();
  const formCard = h("article", { class: "card" }, h("h2", {}, t("checkout.title")), h("p", { class: "muted" }, t("checkout.loading")));
  const progress = h("article", { class: "card", id: "payment", hidden: true });
  const api = shell.mteja.api.addresses;
  // Both in one HTTP request (the client batches calls made together).
  Promise.all([api.list.query(), api.counties.query()])
    .then(([list, counties]) => {
      const names = new Map(counties.data.counties.map((county) => [county.canonical, county.name]));
      const addresses = list.data.addresses.map((address) => ({ ...address, county: names.get(address.county) ?? address.county }));
      formCard.replaceChildren(h("h2", {}, t("checkout.title")), ...checkoutForm(shell, addresses, progress, signal));
    })
    .catch((error: unknown) => status.show("error", describeError(error)));
  return h("section", { class: "grid" }, h("div", {}, formCard, status), progress);
};

function checkoutForm(shell: Shell, addresses: AddressSummary[], progress: HTMLElement, signal: AbortSignal): Node[] {
  if (addresses.length === 0) {
    return [h("p", {}, t("checkout.addAddressFirst"), h("a", { href: "#addresses" }, t("checkout.addressesLink")), ".")];
  }
  const status = notice();
  const chosen = addresses.find((address) => address.is_default) ?? addresses[0]!;
  const total = h("span", { id: "order-total" }, money(1));
  const form = h(
    "form",
    { id: "checkout-form" },
    h("div", { class: "order" }, h("span", {}, t("checkout.item")), total),
    h(
      "label",
      {},
      h("span", {}, t("checkout.deliverTo")),
      h("select", { name: "address" }, ...addresses.map((address) => h("option", { value: address.id, selected: address.id === chosen.id }, `${address.label} — ${address.street}, ${address.county}`))),
    ),
    field(t("checkout.phone"), "phone", { type: "tel", required: true, value: chosen.phone }),
    field(t("checkout.amount"), "amount", { type: "number", required: true, min: 1, step: 1, value: 1 }),
    h("button", { type: "submit" }, t("checkout.pay")),
    h("button", { type: "button", id: "pay-from-menu", class: "secondary" }, t("checkout.payFromMenu")),
    h(
      "details",
      {},
      h("summary", {}, t("checkout.simulatorAmounts")),
      h("table", {}, ...simulatorAmounts.map(([amount, outcome]) => h("tr", {}, h("td", {}, amount), h("td", {}, t(outcome))))),
    ),
  );
  form.addEventListener("input", () => (total.textContent = money(form.querySelector<HTMLInputElement>("input[name=amount]")!.value || 0)));
  // The payment on screen: a new one replaces it (and ends its subscription).
  let following: AbortController | undefined;
  signal.addEventListener("abort", () => following?.abort(), { once: true });
  onSubmit(form, status, async ({ phone = "", amount = "" }) => {
    // The shop's backend fixes what is owed; the browser only names the intent it pays.
    const order = await createOrder(Number(amount));
    const { data } = await shell.mteja.api.payments.stkPush.mutate({ phone, intent_id: order.intent_id });
    following?.abort();
    // 202: M-Pesa's answer proved nothing; the prompt may still be on the phone (its callback settles it).
    if (data.checkoutRequestId === null) return t("checkout.unconfirmed");
    following = new AbortController();
    follow(shell, data.checkoutRequestId, data.customerMessage ?? "", progress, following.signal);
    return t("checkout.checkPhone", { order: order.order_number });
  });
  const menuButton = form.querySelector<HTMLButtonElement>("#pay-from-menu")!;
  menuButton.addEventListener("click", () => {
    menuButton.disabled = true;
    status.clear();
    const amount = Number(form.querySelector<HTMLInputElement>("input[name=amount]")!.value);
    createOrder(amount, "menu")
      .then((order) => {
        following?.abort();
        following = new AbortController();
        showMenuPayment(order, progress, following.signal);
        status.show("ok", t("checkout.payFromMenuOrder", { order: order.order_number }));
      })
      .catch((error: unknown) => status.show("error", describeError(error)))
      .finally(() => (menuButton.disabled = false));
  });
  return [form, status];
}

/** The order's QR code beside the menu's steps, and the simulated phone scanning it; loaded once shown. */
function qrPanel(order: Order): HTMLElement {
  const scanStatus = notice();
  const panel = h("div", { class: "qr", id: "order-qr" }, h("h3", {}, t("checkout.qr.title")), h("p", { class: "muted" }, t("checkout.loading")));
  orderQr(order.intent_id)
    .then((qr) => {
      const scan = button(t("checkout.simulatedScan"), scanStatus, async () => {
        const paid = await scanWithPhone(qr.qr_code);
        return paid.status === "completed" ? t("checkout.phonePaid", { receipt: paid.trans_id }) : t("checkout.phoneCancelled", { reason: paid.reason });
      }, { id: "simulated-scan", class: "secondary" });
      const image = h("img", { id: "order-qr-image", src: `data:image/png;base64,${qr.qr_code}`, width: 240, height: 240, alt: t("checkout.qr.alt", { order: order.order_number }) });
      panel.replaceChildren(h("h3", {}, t("checkout.qr.title")), image, h("p", { class: "muted" }, t("checkout.qr.hint")), scan, scanStatus);
    })
    .catch((error: unknown) => panel.replaceChildren(h("h3", {}, t("checkout.qr.title")), h("p", { class: "muted" }, t("checkout.qr.unavailable", { reason: describeError(error) }))));
  return panel;
}

/**
 * Paybill and order number to type in the M-Pesa menu, beside the order's QR code; the order's status as
 * the shop sees it, until paid.
 */
function showMenuPayment(order: Order, progress: HTMLElement, signal: AbortSignal): void {
  const badge = h("output", { id: "order-status", class: "status", "data-status": "requires_payment" }, "requires_payment");
  const receipt = h("div", {});
  const phoneStatus = notice();
  progress.hidden = false;
  if (!order.paybill) {
    progress.replaceChildren(h("h2", {}, t("checkout.payFromMenu")), h("p", { class: "notice error" }, t("checkout.menuNotSetUp")));
    return;
  }
  const phone = button(t("checkout.simulatedPhone"), phoneStatus, async () => {
    const paid = await payFromPhone(order);
    return paid.status === "completed" ? t("checkout.phonePaid", { receipt: paid.trans_id }) : t("checkout.phoneCancelled", { reason: paid.reason });
  }, { id: "simulated-phone" });
  const menu = h(
    "div",
    { class: "menu-steps" },
    h(
      "ol",
      { class: "steps" },
      h("li", {}, t("checkout.step.open")),
      h("li", {}, t("checkout.step.business"), h("code", { id: "menu-paybill" }, order.paybill)),
      h("li", {}, t("checkout.step.account"), h("code", { id: "menu-account" }, order.order_number)),
      h("li", {}, t("checkout.step.amount", { amount: money(order.amount) })),
    ),
    h("p", { class: "muted" }, t("checkout.noPhone")),
    phone,
    phoneStatus,
  );
  progress.replaceChildren(
    h("h2", {}, t("checkout.payFromMenu")),
    h("div", { class: "pay-options" }, menu, qrPanel(order)),
    h("p", {}, t("checkout.orderStatus"), badge),
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
          receipt.replaceChildren(h("p", { class: "receipt" }, t("checkout.paidFromMenu"), h("code", { id: "order-receipt" }, state.receipt ?? "—"), "."));
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
  const log = h("ol", { class: "log" }, h("li", {}, `${time()} ${t("checkout.promptSent")}${customerMessage}`));
  const receipt = h("div", {});
  progress.hidden = false;
  progress.replaceChildren(h("h2", {}, t("checkout.payment")), h("p", {}, t("checkout.status"), badge), h("p", { class: "muted" }, "CheckoutRequestID ", h("code", {}, checkoutRequestId)), log, receipt);

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
      ...[
        h("p", { class: "receipt" }, t("checkout.paid", { amount: money(payment.paidAmount ?? payment.amount), phone: payment.phone }), h("code", { id: "mpesa-receipt" }, payment.mpesaReceipt ?? "—"), "."),
        saveDetailsOffer(shell),
      ].filter((node): node is HTMLElement => node !== null),
    );
  } catch (error) {
    receipt.replaceChildren(h("p", { class: "notice error" }, describeError(error)));
  }
}

function time(): string {
  return new Date().toLocaleTimeString();
}
