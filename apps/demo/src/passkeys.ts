/**
 * Passkeys (docs/sign-in.md#passkeys) with @simplewebauthn/browser: signed in, the customer adds one
 * (on a fresh session: right after signing in) and sees its list; signed out, "Sign in with a
 * passkey" asks the device for one of the shop's passkeys, no email typed (discoverable credentials).
 */
import { startAuthentication, startRegistration } from "@simplewebauthn/browser";
import type { Shell } from "./shell.js";
import { button, field, h, notice, onSubmit } from "./ui.js";
import { t } from "./text.js";

type TwoFactorStep = (otpToken: string, status: ReturnType<typeof notice>, startOver: () => void) => HTMLFormElement;

export function passkeySignInCard(shell: Shell, twoFactorStep: TwoFactorStep): HTMLElement {
  const status = notice();
  const actions = h("div", { class: "actions", id: "passkey-sign-in" });
  const signIn = button(t("passkeys.signIn"), status, async () => {
    const options = await shell.mteja.api.passkeys.loginOptions.mutate();
    const response = await startAuthentication({ optionsJSON: options.data });
    const { data } = await shell.mteja.api.passkeys.loginVerify.mutate({ response });
    if (data.requires_otp) {
      const step = twoFactorStep(data.otp_token, status, () => {
        status.clear();
        step.replaceWith(actions);
      });
      actions.replaceWith(step);
      return t("common.twoFactorNeeded");
    }
    await shell.reload();
  });
  actions.append(signIn);
  return h("article", { class: "card" }, h("h2", {}, t("passkeys.signInTitle")), h("p", { class: "muted" }, t("passkeys.signInHint")), actions, status);
}

export function passkeysCard(shell: Shell): HTMLElement {
  const status = notice();
  const list = h("ul", { id: "passkey-list" });
  const load = async () => {
    const { data } = await shell.mteja.api.passkeys.list.query({ limit: 100 });
    list.replaceChildren(
      ...(data.passkeys.length
        ? data.passkeys.map((passkey) =>
            h("li", { class: "passkey", "data-passkey-id": passkey.id }, h("strong", {}, passkey.name), " ", h("span", { class: "muted" }, t("passkeys.added", { when: new Date(passkey.created_at).toLocaleString() }))),
          )
        : [h("li", { class: "muted" }, t("passkeys.none"))]),
    );
  };
  const form = h(
    "form",
    { id: "passkey-add" },
    field(t("passkeys.name"), "name", { placeholder: t("passkeys.namePlaceholder"), maxlength: 60 }),
    h("button", { type: "submit" }, t("passkeys.add")),
  );
  onSubmit(form, status, async ({ name = "" }) => {
    const options = await shell.mteja.api.passkeys.registerOptions.mutate();
    const response = await startRegistration({ optionsJSON: options.data });
    const result = await shell.mteja.api.passkeys.registerVerify.mutate({ response, ...(name.trim() ? { name } : {}) });
    await load();
    return result.message;
  });
  load().catch((error: unknown) => status.show("error", error instanceof Error ? error.message : String(error)));
  return h("article", { class: "card", id: "passkeys" }, h("h2", {}, t("passkeys.title")), h("p", { class: "muted" }, t("passkeys.hint")), list, form, status);
}
