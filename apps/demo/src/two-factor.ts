/**
 * Two-factor: otp/setup (QR code and secret), otp/verify (enables it and shows the recovery codes once),
 * otp/disable (with the password). Signing in afterwards asks for a code (account screen).
 */
import type { Screen, Shell } from "./shell.js";
import { button, field, h, notice, onSubmit } from "./ui.js";
import { t } from "./text.js";

export const twoFactorScreen: Screen = (shell) => {
  const card = h("article", { class: "card", id: "two-factor" }, h("h2", {}, t("otp.title")));
  card.append(...(shell.user!.otp_enabled ? enabledView(shell) : disabledView(shell, card)));
  return h("section", {}, card);
};

function enabledView(shell: Shell): Node[] {
  const status = notice();
  const form = h(
    "form",
    { id: "otp-disable" },
    field(t("common.currentPassword"), "password", { type: "password", required: true, autocomplete: "current-password" }),
    h("button", { type: "submit", class: "danger" }, t("otp.turnOff")),
  );
  onSubmit(form, status, async ({ password = "" }) => {
    const result = await shell.mteja.api.otp.disable.mutate({ password });
    await shell.reload(result.message);
  });
  return [h("p", {}, h("span", { class: "badge ok" }, t("common.on")), t("otp.onHint")), form, status];
}

function disabledView(shell: Shell, card: HTMLElement): Node[] {
  const status = notice();
  const start = button(t("otp.setUp"), status, async () => {
    const { data, message } = await shell.mteja.api.otp.setup.mutate();
    card.replaceChildren(h("h2", {}, t("otp.title")), ...setupView(shell, data, card));
    return message;
  });
  return [h("p", {}, h("span", { class: "badge warn" }, t("common.off")), t("otp.offHint")), start, status];
}

function setupView(shell: Shell, setup: { secret: string; qr_code_url: string; qr_code_data_url: string }, card: HTMLElement): Node[] {
  const status = notice();
  const form = h(
    "form",
    { id: "otp-verify" },
    field(t("otp.codeFromApp"), "code", { required: true, inputmode: "numeric", autocomplete: "one-time-code", placeholder: "123 456" }),
    h("button", { type: "submit" }, t("otp.turnOn")),
  );
  onSubmit(form, status, async ({ code = "" }) => {
    const { data, message } = await shell.mteja.api.otp.verify.mutate({ code });
    card.replaceChildren(h("h2", {}, t("otp.title")), ...recoveryCodesView(shell, data.recovery_codes, message));
  });
  return [
    h("p", {}, t("otp.scan")),
    h("img", { id: "otp-qr", src: setup.qr_code_data_url, alt: t("otp.qrAlt"), width: 200, height: 200 }),
    h("p", {}, t("otp.typeSecret"), h("code", { id: "otp-secret", "data-secret": setup.secret }, setup.secret.replace(/(.{4})/g, "$1 ").trim())),
    h("details", {}, h("summary", {}, "otpauth:// URI"), h("code", { class: "wrap" }, setup.qr_code_url)),
    h("p", {}, t("otp.enterCode")),
    form,
    status,
  ];
}

function recoveryCodesView(shell: Shell, codes: string[], message: string | undefined): Node[] {
  const status = notice();
  status.show("ok", message ?? t("otp.enabled"));
  return [
    status,
    h("p", {}, t("otp.recoveryHint")),
    h("ol", { id: "recovery-codes", class: "codes" }, ...codes.map((code) => h("li", {}, h("code", {}, code)))),
    button(t("otp.saved"), status, () => shell.reload(), { id: "otp-done" }),
  ];
}
