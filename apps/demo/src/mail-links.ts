/**
 * The pages the account mails link to, `${APP_URL}/verify-email?token&email` and
 * `${APP_URL}/reset-password?token&email`: APP_URL is this demo on the dev start, so a link followed
 * from the dev outbox (or a real mail client) lands here and spends its token. A verify-email link with
 * `change=1` confirms a new address (docs/email.md): it is spent by the signed-in account, through
 * email.verify, not auth.verifyEmail.
 */
import type { MtejaClient } from "@mteja/client";
import { describeError, field, h, notice, onSubmit } from "./ui.js";
import { t } from "./text.js";

const pages = ["verify-email", "reset-password"] as const;

/** The page for a mail link, or undefined when `url` is not one (the shop's screens then). */
export function mailLinkScreen(mteja: MtejaClient, url: URL): HTMLElement | undefined {
  const page = pages.find((name) => url.pathname.replace(/\/+$/, "").endsWith(`/${name}`));
  if (!page) return undefined;
  // Missing parts go to the API as they are: its VALIDATION_ERROR / INVALID_TOKEN is the answer.
  const link = { token: url.searchParams.get("token") ?? "", email: url.searchParams.get("email") ?? "" };
  if (page === "verify-email" && url.searchParams.get("change") === "1") return changeEmailCard(mteja, link);
  return page === "verify-email" ? verifyEmailCard(mteja, link) : resetPasswordCard(mteja, link);
}

type Link = { token: string; email: string };

/** Back to the shop's screens: /demo/ from /demo/<page>. */
const toShop = (label: string) => h("a", { href: "./", id: "to-shop" }, label);

function verifyEmailCard(mteja: MtejaClient, link: Link): HTMLElement {
  const status = notice();
  status.show("info", t("links.verifying", { email: link.email }));
  mteja.api.auth.verifyEmail
    .mutate(link)
    .then((result) => status.show("ok", result.message))
    .catch((error: unknown) => status.show("error", describeError(error)));
  return h("article", { class: "card", id: "verify-email" }, h("h2", {}, t("links.verifyTitle")), status, h("p", {}, toShop(t("links.toShop"))));
}

/** The change is the signed-in account's: the session comes back from the refresh cookie first. */
function changeEmailCard(mteja: MtejaClient, link: Link): HTMLElement {
  const status = notice();
  status.show("info", t("links.changing", { email: link.email }));
  mteja.refresh().then(
    () =>
      mteja.api.email.verify
        .mutate({ token: link.token })
        .then((result) => status.show("ok", result.message ?? t("links.changed", { email: result.data.email })))
        .catch((error: unknown) => status.show("error", describeError(error))),
    () => status.show("error", t("links.changeSignInFirst")),
  );
  return h("article", { class: "card", id: "change-email" }, h("h2", {}, t("links.changeTitle")), status, h("p", {}, toShop(t("links.toShop"))));
}

function resetPasswordCard(mteja: MtejaClient, link: Link): HTMLElement {
  const status = notice();
  const form = h(
    "form",
    { id: "reset-password-form" },
    h("p", { class: "muted" }, t("links.resetFor", { email: link.email })),
    field(t("links.newPassword"), "new_password", { type: "password", required: true, minlength: 8, autocomplete: "new-password" }),
    h("button", { type: "submit" }, t("links.setPassword")),
  );
  onSubmit(form, status, async ({ new_password = "" }) => {
    const result = await mteja.api.auth.resetPassword.mutate({ ...link, new_password });
    form.replaceWith(h("p", {}, toShop(t("links.signIn"))));
    return result.message;
  });
  return h("article", { class: "card", id: "reset-password" }, h("h2", {}, t("links.resetTitle")), form, status);
}
