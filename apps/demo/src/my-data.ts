/**
 * My data: download everything the shop holds on the customer (dataRights.exportMyData, as a JSON file)
 * and erase the account (dataRights.eraseMyAccount, with the password and, when two-factor is on, a code).
 */
import type { Screen } from "./shell.js";
import { button, field, h, notice, onSubmit } from "./ui.js";
import { t } from "./text.js";

export const myDataScreen: Screen = (shell) => {
  const exportStatus = notice();
  const download = button(t("myData.download"), exportStatus, async () => {
    const { data } = await shell.mteja.api.dataRights.exportMyData.query();
    const file = new Blob([JSON.stringify(data, null, 2)], { type: "application/json" });
    const link = h("a", { href: URL.createObjectURL(file), download: "my-data.json" });
    link.click();
    // Revoked later: revoking at once can cancel the download before the browser has read the file.
    setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
    return t("myData.downloaded", { addresses: data.addresses.length, sessions: data.sessions.length, payments: data.payments.length, events: data.security_events.length });
  }, { id: "export-data" });

  const deleteStatus = notice();
  const form = h(
    "form",
    { id: "delete-account" },
    field(t("common.currentPassword"), "password", { type: "password", required: true, autocomplete: "current-password" }),
    shell.user!.otp_enabled ? field(t("common.authCode"), "code", { required: true, inputmode: "numeric", autocomplete: "one-time-code" }) : null,
    h("button", { type: "submit", class: "danger" }, t("myData.delete")),
  );
  onSubmit(form, deleteStatus, async ({ password = "", code }) => {
    await shell.mteja.api.dataRights.eraseMyAccount.mutate({ password, ...(code ? { code } : {}) });
    shell.signedOut();
  });

  return h(
    "section",
    { class: "grid" },
    h("article", { class: "card", id: "export" }, h("h2", {}, t("myData.title")), h("p", { class: "muted" }, t("myData.hint")), download, exportStatus),
    h(
      "article",
      { class: "card", id: "delete" },
      h("h2", {}, t("myData.deleteTitle")),
      h("p", { class: "muted" }, t("myData.deleteHint")),
      form,
      deleteStatus,
    ),
  );
};
