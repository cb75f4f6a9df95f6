/**
 * Sign in with phone: phone/start texts a code, phone/verify signs in (or signs up) with it. Without a
 * phone at hand, the code is read from the service's dev outbox of texts (GET /dev/outbox/texts,
 * outside production only), as the mail flows read their links from GET /dev/outbox.
 */
import { callOptions } from "@mteja/client";
import { captchaToken } from "./captcha.js";
import type { Shell } from "./shell.js";
import { field, h, notice, onSubmit } from "./ui.js";
import { t } from "./text.js";

interface OutboxText {
  to: string;
  body: string;
  created_at: string;
}

/** The newest code texted to `phone` (as typed: 07…, +2547…), from the dev outbox. */
async function codeFromOutbox(phone: string, tenantId: string): Promise<string> {
  const digits = phone.replace(/[\s-]/g, "").replace(/^\+?254/, "").replace(/^0/, "");
  const response = await fetch(`/dev/outbox/texts?${new URLSearchParams({ to: `+254${digits}`, tenant: tenantId, limit: "1" })}`, { headers: { accept: "application/json" } });
  if (response.status === 404) throw new Error(t("outbox.textsElsewhere"));
  const body = (await response.json()) as { data?: { texts?: OutboxText[] } };
  const code = /\b(\d{6})\b/.exec(body.data?.texts?.[0]?.body ?? "")?.[1];
  if (!code) throw new Error(t("outbox.noCode"));
  return code;
}

export function phoneSignInCard(shell: Shell, twoFactorStep: (otpToken: string, status: ReturnType<typeof notice>, startOver: () => void) => HTMLFormElement): HTMLElement {
  const status = notice();
  const card = h("article", { class: "card" }, h("h2", {}, t("phone.title")));
  const start = h(
    "form",
    { id: "phone-start" },
    field(t("account.phone"), "phone", { type: "tel", required: true, placeholder: "0712 345 678", autocomplete: "tel" }),
    h("p", { class: "muted" }, t("phone.hint")),
    h("button", { type: "submit" }, t("phone.send")),
  );
  onSubmit(start, status, async ({ phone = "" }) => {
    const captcha = await captchaToken();
    const result = await shell.mteja.api.phone.start.mutate({ phone }, callOptions(captcha ? { captchaToken: captcha } : {}));
    const step = codeStep(phone, () => {
      status.clear();
      step.replaceWith(start);
    });
    start.replaceWith(step);
    return result.message;
  });

  function codeStep(phone: string, startOver: () => void): HTMLFormElement {
    const back = h("button", { type: "button", class: "secondary" }, t("common.startOver"));
    back.addEventListener("click", startOver);
    const fromOutbox = h("button", { type: "button", class: "secondary", id: "phone-code-from-outbox" }, t("phone.fromOutbox"));
    const form = h(
      "form",
      { id: "phone-verify" },
      field(t("phone.code"), "code", { required: true, inputmode: "numeric", autocomplete: "one-time-code", placeholder: "123456" }),
      field(t("phone.name"), "name", { autocomplete: "name" }),
      h("div", { class: "actions" }, h("button", { type: "submit" }, t("common.verifyAndSignIn")), fromOutbox, back),
    );
    fromOutbox.addEventListener("click", () => {
      codeFromOutbox(phone, shell.tenantId).then(
        (code) => {
          form.querySelector<HTMLInputElement>("input[name=code]")!.value = code;
        },
        (error: unknown) => status.show("error", error instanceof Error ? error.message : String(error)),
      );
    });
    onSubmit(form, status, async ({ code = "", name = "" }) => {
      const { data } = await shell.mteja.api.phone.verify.mutate({ phone, code, ...(name.trim() ? { name } : {}) });
      if (data.requires_otp) {
        const step = twoFactorStep(data.otp_token, status, startOver);
        form.replaceWith(step);
        return t("common.twoFactorNeeded");
      }
      await shell.reload();
    });
    return form;
  }

  card.append(start, status);
  return card;
}
