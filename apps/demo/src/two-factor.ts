/**
 * Two-factor: otp/setup (QR code and secret), otp/verify (enables it and shows the recovery codes once),
 * otp/disable (with the password). Signing in afterwards asks for a code (account screen).
 */
import type { Screen, Shell } from "./shell.js";
import { button, field, h, notice, onSubmit } from "./ui.js";

export const twoFactorScreen: Screen = (shell) => {
  const card = h("article", { class: "card", id: "two-factor" }, h("h2", {}, "Two-factor authentication"));
  card.append(...(shell.user!.otp_enabled ? enabledView(shell) : disabledView(shell, card)));
  return h("section", {}, card);
};

function enabledView(shell: Shell): Node[] {
  const status = notice();
  const form = h(
    "form",
    { id: "otp-disable" },
    field("Current password", "password", { type: "password", required: true, autocomplete: "current-password" }),
    h("button", { type: "submit", class: "danger" }, "Turn two-factor off"),
  );
  onSubmit(form, status, async ({ password = "" }) => {
    const result = await shell.mteja.api.otp.disable.mutate({ password });
    await shell.reload(result.message);
  });
  return [h("p", {}, h("span", { class: "badge ok" }, "on"), " Signing in asks for a code from your authenticator app."), form, status];
}

function disabledView(shell: Shell, card: HTMLElement): Node[] {
  const status = notice();
  const start = button("Set up two-factor", status, async () => {
    const { data, message } = await shell.mteja.api.otp.setup.mutate();
    card.replaceChildren(h("h2", {}, "Two-factor authentication"), ...setupView(shell, data, card));
    return message;
  });
  return [h("p", {}, h("span", { class: "badge warn" }, "off"), " Protect the account with a code from an authenticator app (Google Authenticator, Aegis, 1Password…)."), start, status];
}

function setupView(shell: Shell, setup: { secret: string; qr_code_url: string; qr_code_data_url: string }, card: HTMLElement): Node[] {
  const status = notice();
  const form = h(
    "form",
    { id: "otp-verify" },
    field("Code from the app", "code", { required: true, inputmode: "numeric", autocomplete: "one-time-code", placeholder: "123 456" }),
    h("button", { type: "submit" }, "Turn two-factor on"),
  );
  onSubmit(form, status, async ({ code = "" }) => {
    const { data, message } = await shell.mteja.api.otp.verify.mutate({ code });
    card.replaceChildren(h("h2", {}, "Two-factor authentication"), ...recoveryCodesView(shell, data.recovery_codes, message));
  });
  return [
    h("p", {}, "1. Scan this QR code with your authenticator app:"),
    h("img", { id: "otp-qr", src: setup.qr_code_data_url, alt: "QR code of the two-factor secret", width: 200, height: 200 }),
    h("p", {}, "…or type the secret: ", h("code", { id: "otp-secret", "data-secret": setup.secret }, setup.secret.replace(/(.{4})/g, "$1 ").trim())),
    h("details", {}, h("summary", {}, "otpauth:// URI"), h("code", { class: "wrap" }, setup.qr_code_url)),
    h("p", {}, "2. Enter the 6-digit code the app shows:"),
    form,
    status,
  ];
}

function recoveryCodesView(shell: Shell, codes: string[], message: string | undefined): Node[] {
  const status = notice();
  status.show("ok", message ?? "Two-factor authentication is now enabled.");
  return [
    status,
    h("p", {}, "Your recovery codes. Each works once in place of a code; they are shown only now:"),
    h("ol", { id: "recovery-codes", class: "codes" }, ...codes.map((code) => h("li", {}, h("code", {}, code)))),
    button("I have saved them", status, () => shell.reload(), { id: "otp-done" }),
  ];
}
