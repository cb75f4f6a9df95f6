/**
 * Change (or, for an account made by phone, add) the email: email.start mails a link to the new
 * address; the dev outbox shows that mail, and its link is confirmed here with email.verify, as the
 * page the link opens would do (mail-links.ts). docs/email.md.
 */
import { linkParams, mailCard, readOutbox } from "./outbox.js";
import type { Shell } from "./shell.js";
import { button, field, h, notice, onSubmit } from "./ui.js";
import { t } from "./text.js";

export function emailChangeCard(shell: Shell): HTMLElement {
  const user = shell.user!;
  const status = notice();
  const mails = h("div", { id: "email-change-inbox", class: "mails" });
  const form = h(
    "form",
    { id: "email-change" },
    field(t("email.new"), "email", { type: "email", required: true, autocomplete: "email" }),
    h("p", { class: "muted" }, t("email.hint")),
    h("button", { type: "submit" }, t("email.send")),
  );

  /** A change link (…/verify-email?…&change=1) gets a button that confirms it for this account. */
  const confirmButton = (link: string) => {
    const params = linkParams(link, "verify-email");
    if (!params || new URL(link).searchParams.get("change") !== "1") return undefined;
    return button(t("email.confirmWithLink"), status, async () => {
      const result = await shell.mteja.api.email.verify.mutate({ token: params.token });
      await shell.reload(result.message);
    });
  };

  onSubmit(form, status, async ({ email = "" }) => {
    const result = await shell.mteja.api.email.start.mutate({ email });
    // The newest change mail only: a newer start retires the earlier links.
    const found = (await readOutbox(email.trim().toLowerCase(), shell.tenantId).catch(() => [])).filter((mail) => mail.kind === "confirmEmailChange").slice(0, 1);
    mails.replaceChildren(...found.map((mail) => mailCard(mail, confirmButton)));
    return result.message;
  });

  return h("article", { class: "card" }, h("h2", {}, user.email === null ? t("email.addTitle") : t("email.changeTitle")), form, status, mails);
}
