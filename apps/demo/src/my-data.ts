/**
 * My data: download everything the shop holds on the customer (dataRights.exportMyData, as a JSON file)
 * and erase the account (dataRights.eraseMyAccount, with the password and, when two-factor is on, a code).
 */
import type { Screen } from "./shell.js";
import { button, field, h, notice, onSubmit } from "./ui.js";

export const myDataScreen: Screen = (shell) => {
  const exportStatus = notice();
  const download = button("Download my data (JSON)", exportStatus, async () => {
    const { data } = await shell.mteja.api.dataRights.exportMyData.query();
    const file = new Blob([JSON.stringify(data, null, 2)], { type: "application/json" });
    const link = h("a", { href: URL.createObjectURL(file), download: "my-data.json" });
    link.click();
    // Revoked later: revoking at once can cancel the download before the browser has read the file.
    setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
    return `Downloaded: ${data.addresses.length} addresses, ${data.sessions.length} sessions, ${data.payments.length} payments, ${data.security_events.length} security events.`;
  }, { id: "export-data" });

  const deleteStatus = notice();
  const form = h(
    "form",
    { id: "delete-account" },
    field("Current password", "password", { type: "password", required: true, autocomplete: "current-password" }),
    shell.user!.otp_enabled ? field("Authentication code", "code", { required: true, inputmode: "numeric", autocomplete: "one-time-code" }) : null,
    h("button", { type: "submit", class: "danger" }, "Delete my account"),
  );
  onSubmit(form, deleteStatus, async ({ password = "", code }) => {
    await shell.mteja.api.dataRights.eraseMyAccount.mutate({ password, ...(code ? { code } : {}) });
    shell.signedOut();
  });

  return h(
    "section",
    { class: "grid" },
    h("article", { class: "card", id: "export" }, h("h2", {}, "Your data"), h("p", { class: "muted" }, "A copy of your profile, addresses, sessions, payments and security events. You will get an email about it."), download, exportStatus),
    h(
      "article",
      { class: "card", id: "delete" },
      h("h2", {}, "Delete your account"),
      h("p", { class: "muted" }, "Your personal details, addresses and sessions are removed. Payment records are kept, as the law requires, without your full phone number."),
      form,
      deleteStatus,
    ),
  );
};
