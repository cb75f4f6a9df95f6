/**
 * Guest checkout (docs/sign-in.md#guest-checkout): "Check out as a guest" signs in with no details at
 * all; once paid, "Save your details" upgrades the same account in place (an email and a password; the
 * email is confirmed through the link in the dev outbox) — the addresses and payments stay.
 * Where the shop asks for a CAPTCHA, the token comes from the dev start's stand-in (`captcha.ts`).
 */
import { callOptions } from "@mteja/client";
import { captchaToken } from "./captcha.js";
import type { Shell } from "./shell.js";
import { field, h, notice, onSubmit } from "./ui.js";
import { t } from "./text.js";

export function guestCard(shell: Shell): HTMLElement {
  const status = notice();
  const start = h("button", { type: "button", id: "guest-start" }, t("guest.start"));
  start.addEventListener("click", () => {
    status.clear();
    void (async () => {
      const token = await captchaToken();
      const result = await shell.mteja.api.auth.guest.mutate({}, callOptions(token ? { captchaToken: token } : {}));
      await shell.reload(result.message);
      shell.go("addresses");
    })().catch((error: unknown) => status.show("error", error instanceof Error ? error.message : String(error)));
  });
  return h("article", { class: "card", id: "guest-card" }, h("h2", {}, t("guest.title")), h("p", { class: "muted" }, t("guest.hint")), start, status);
}

/** For a guest: keep this account with an email and a password. */
export function saveDetailsCard(shell: Shell): HTMLElement {
  const status = notice();
  const form = h(
    "form",
    { id: "save-details" },
    field(t("account.fullName"), "name", { autocomplete: "name" }),
    field(t("account.email"), "email", { type: "email", required: true, autocomplete: "email" }),
    field(t("account.password"), "password", { type: "password", required: true, minlength: 8, autocomplete: "new-password" }),
    h("button", { type: "submit" }, t("guest.save")),
  );
  onSubmit(form, status, async ({ name = "", email = "", password = "" }) => {
    // The answer carries a customer's access token for the same session: the client keeps it.
    const result = await shell.mteja.api.auth.guestUpgrade.mutate({ email, password, ...(name.trim() ? { name } : {}) });
    await shell.reload(result.message);
  });
  return h("article", { class: "card", id: "save-details-card" }, h("h2", {}, t("guest.saveTitle")), h("p", { class: "muted" }, t("guest.saveHint")), form, status);
}

/** After a guest's payment: the offer to save the details. */
export function saveDetailsOffer(shell: Shell): HTMLElement | null {
  if (!shell.user?.is_guest) return null;
  const go = h("button", { type: "button", id: "save-details-offer" }, t("guest.save"));
  go.addEventListener("click", () => shell.go("account"));
  return h("p", { class: "notice ok" }, t("guest.offer"), " ", go);
}
