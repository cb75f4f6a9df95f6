/**
 * Delivery addresses: the customer's list (default first), add one with the county picker (the 47
 * counties from addresses.counties), make one the default, delete one.
 */
import type { MtejaClient } from "@mteja/client";
import type { Screen, Shell } from "./shell.js";
import { button, field, h, notice, onSubmit } from "./ui.js";
import { t } from "./text.js";

type Api = MtejaClient["api"];
export type County = Awaited<ReturnType<Api["addresses"]["counties"]["query"]>>["data"]["counties"][number];
export type AddressSummary = Awaited<ReturnType<Api["addresses"]["list"]["query"]>>["data"]["addresses"][number];

export const addressesScreen: Screen = (shell) => {
  const status = notice();
  const list = h("div", { id: "address-list", class: "cards" }, h("p", { class: "muted" }, t("common.loading")));
  const formCard = h("article", { class: "card" }, h("h2", {}, t("addresses.addTitle")));
  const section = h("section", { class: "grid" }, h("article", { class: "card" }, h("h2", {}, t("addresses.title")), status, list), formCard);

  const load = async (counties: County[]) => {
    const { data } = await shell.mteja.api.addresses.list.query();
    const names = new Map(counties.map((county) => [county.canonical, county.name]));
    list.replaceChildren(
      ...(data.addresses.length
        ? data.addresses.map((address) => addressCard(shell, address, names.get(address.county) ?? address.county, status, () => load(counties)))
        : [h("p", { class: "muted" }, t("addresses.none"))]),
    );
  };

  shell.mteja.api.addresses.counties
    .query()
    .then(async ({ data }) => {
      formCard.append(addressForm(shell, data.counties, () => load(data.counties)));
      await load(data.counties);
    })
    .catch((error: unknown) => status.show("error", String(error instanceof Error ? error.message : error)));
  return section;
};

function addressCard(shell: Shell, address: AddressSummary, countyName: string, status: ReturnType<typeof notice>, reload: () => Promise<void>): HTMLElement {
  const api = shell.mteja.api.addresses;
  return h(
    "div",
    { class: "address", "data-id": address.id },
    h("div", {}, h("strong", {}, address.label), address.is_default ? h("span", { class: "badge ok" }, t("addresses.default")) : null),
    h("div", {}, `${address.recipient_name} · ${address.phone}`),
    h("div", { class: "muted" }, [address.street, address.town, countyName].filter(Boolean).join(", ")),
    h(
      "div",
      { class: "actions" },
      address.is_default
        ? null
        : button(t("addresses.makeDefault"), status, async () => {
            const result = await api.setDefault.mutate({ id: address.id });
            await reload();
            return result.message;
          }),
      button(
        t("addresses.delete"),
        status,
        async () => {
          const result = await api.remove.mutate({ id: address.id });
          await reload();
          return result.message;
        },
        { class: "danger" },
      ),
    ),
  );
}

/** The county picker: every county by name; the value sent is its canonical form. */
export function countyPicker(counties: County[]): HTMLLabelElement {
  return h(
    "label",
    {},
    h("span", {}, t("addresses.county")),
    h(
      "select",
      { name: "county", required: true },
      h("option", { value: "" }, t("addresses.chooseCounty")),
      ...counties.map((county) => h("option", { value: county.canonical }, county.name)),
    ),
  );
}

function addressForm(shell: Shell, counties: County[], reload: () => Promise<void>): Node {
  const user = shell.user!;
  const status = notice();
  const form = h(
    "form",
    { id: "address-form" },
    field(t("addresses.label"), "label", { required: true, placeholder: t("addresses.labelPlaceholder"), maxlength: 50 }),
    field(t("addresses.recipient"), "recipient_name", { required: true, value: user.name ?? "", maxlength: 100 }),
    field(t("account.phone"), "phone", { type: "tel", required: true, value: user.phone ?? "", placeholder: "0712 345 678" }),
    field(t("addresses.street"), "street", { required: true, maxlength: 200 }),
    countyPicker(counties),
    field(t("addresses.town"), "town", { maxlength: 100 }),
    field(t("addresses.landmark"), "landmark", { maxlength: 200 }),
    h("label", { class: "check" }, h("input", { type: "checkbox", name: "is_default", value: "yes" }), h("span", {}, t("addresses.makeMyDefault"))),
    h("button", { type: "submit" }, t("addresses.save")),
  );
  onSubmit(form, status, async ({ is_default, ...fields }) => {
    const result = await shell.mteja.api.addresses.create.mutate({
      label: fields.label ?? "",
      recipient_name: fields.recipient_name ?? "",
      phone: fields.phone ?? "",
      street: fields.street ?? "",
      county: fields.county ?? "",
      town: fields.town || null,
      landmark: fields.landmark || null,
      ...(is_default ? { is_default: true } : {}),
    });
    form.reset();
    await reload();
    return result.message;
  });
  return h("div", {}, form, status);
}
