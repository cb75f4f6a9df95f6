/**
 * Account: register, sign in (with the two-factor step when the account has it), and, once signed in,
 * the profile and the dev outbox, where the verification link is followed.
 */
import { emailChangeCard } from "./email-change.js";
import { linkParams, mailCard, readOutbox } from "./outbox.js";
import { phoneSignInCard } from "./phone.js";
import { googleSignInCard } from "./google.js";
import type { Screen, Shell } from "./shell.js";
import { button, field, h, notice, onSubmit } from "./ui.js";
import { t } from "./text.js";

export const accountScreen: Screen = (shell) => (shell.user ? signedInView(shell) : signedOutView(shell));

function signedOutView(shell: Shell): HTMLElement {
  return h(
    "section",
    { class: "grid" },
    registerCard(shell),
    signInCard(shell),
    phoneSignInCard(shell, (otpToken, status, startOver) => otpStep(shell, otpToken, status, startOver)),
    googleSignInCard(shell, (otpToken, status, startOver) => otpStep(shell, otpToken, status, startOver)),
  );
}

function registerCard(shell: Shell): HTMLElement {
  const status = notice();
  const form = h(
    "form",
    { id: "register" },
    field(t("account.fullName"), "name", { required: true, autocomplete: "name" }),
    field(t("account.email"), "email", { type: "email", required: true, autocomplete: "email" }),
    field(t("account.phoneOptional"), "phone", { type: "tel", placeholder: "0712 345 678", autocomplete: "tel" }),
    field(t("account.password"), "password", { type: "password", required: true, minlength: 8, autocomplete: "new-password" }),
    h("button", { type: "submit" }, t("account.create")),
  );
  onSubmit(form, status, async ({ name = "", email = "", phone = "", password = "" }) => {
    // register answers with an access token and sets the refresh cookie: the customer is signed in.
    const result = await shell.mteja.api.auth.register.mutate({ name, email, password, ...(phone.trim() ? { phone } : {}) });
    await shell.reload(result.message);
  });
  return h("article", { class: "card" }, h("h2", {}, t("account.createTitle")), form, status);
}

function signInCard(shell: Shell): HTMLElement {
  const status = notice();
  const card = h("article", { class: "card" }, h("h2", {}, t("account.signInTitle")));
  const form = h(
    "form",
    { id: "sign-in" },
    field(t("account.email"), "email", { type: "email", required: true, autocomplete: "username" }),
    field(t("account.password"), "password", { type: "password", required: true, autocomplete: "current-password" }),
    h("button", { type: "submit" }, t("account.signIn")),
  );
  onSubmit(form, status, async ({ email = "", password = "" }) => {
    const { data } = await shell.mteja.api.auth.login.mutate({ email, password });
    if (data.requires_otp) {
      const step = otpStep(shell, data.otp_token, status, () => {
        status.clear();
        step.replaceWith(form);
      });
      form.replaceWith(step);
      return t("common.twoFactorNeeded");
    }
    await shell.reload();
  });
  card.append(form, status);
  return card;
}

/** The second step of a two-factor sign-in: the otp_token from login and a code (or a recovery code). */
function otpStep(shell: Shell, otpToken: string, status: ReturnType<typeof notice>, startOver: () => void): HTMLFormElement {
  const back = h("button", { type: "button", class: "secondary" }, t("common.startOver"));
  back.addEventListener("click", startOver);
  const form = h(
    "form",
    { id: "otp-step" },
    field(t("common.authCode"), "code", { required: true, inputmode: "numeric", autocomplete: "one-time-code", placeholder: "123 456" }),
    h("p", { class: "muted" }, t("account.lostPhone")),
    h("div", { class: "actions" }, h("button", { type: "submit" }, t("common.verifyAndSignIn")), back),
  );
  onSubmit(form, status, async ({ code = "" }) => {
    await shell.mteja.api.otp.validate.mutate({ otp_token: otpToken, code });
    await shell.reload();
  });
  return form;
}

function signedInView(shell: Shell): HTMLElement {
  const user = shell.user!;
  const profile = h(
    "article",
    { class: "card", id: "profile" },
    h("h2", {}, t("account.yourAccount")),
    h(
      "dl",
      {},
      h("dt", {}, t("account.name")),
      h("dd", {}, user.name ?? "—"),
      h("dt", {}, t("account.email")),
      user.email === null
        ? h("dd", {}, "—")
        : h("dd", {}, user.email, " ", user.email_verified ? h("span", { class: "badge ok", id: "email-state" }, t("common.verified")) : h("span", { class: "badge warn", id: "email-state" }, t("common.notVerified"))),
      h("dt", {}, t("account.phone")),
      h("dd", {}, user.phone ?? "—", " ", user.phone ? h("span", { class: user.phone_verified ? "badge ok" : "badge warn", id: "phone-state" }, user.phone_verified ? t("common.verified") : t("common.notVerified")) : null),
      h("dt", {}, t("account.twoFactor")),
      h("dd", {}, user.otp_enabled ? t("common.on") : t("common.off"), " · ", h("a", { href: "#two-factor" }, t("account.manage"))),
    ),
  );
  // An account made by phone sign-in has no email, so no inbox.
  return h("section", { class: "grid" }, profile, user.email === null ? null : inboxCard(shell), emailChangeCard(shell));
}

/** The dev outbox for this customer; a verification link gets a button that spends its token here. */
function inboxCard(shell: Shell): HTMLElement {
  const user = shell.user!;
  const status = notice();
  const mails = h("div", { id: "inbox", class: "mails" });

  const verifyButton = (link: string) => {
    const params = linkParams(link, "verify-email");
    if (!params || user.email_verified) return undefined;
    return button(t("inbox.verifyWithLink"), status, async () => {
      const result = await shell.mteja.api.auth.verifyEmail.mutate(params);
      await shell.reload(result.message);
    });
  };
  const load = async () => {
    const found = await readOutbox(user.email ?? "", shell.tenantId);
    mails.replaceChildren(...(found.length ? found.map((mail) => mailCard(mail, verifyButton)) : [h("p", { class: "muted" }, t("inbox.none"))]));
  };
  const resend = button(t("inbox.resend"), status, async () => {
    const result = await shell.mteja.api.auth.resendVerificationEmail.mutate();
    await load();
    return result.message;
  });
  load().catch((error: unknown) => status.show("error", error instanceof Error ? error.message : String(error)));

  return h(
    "article",
    { class: "card" },
    h("h2", {}, t("inbox.title"), h("small", {}, t("inbox.devOutbox"))),
    h(
      "p",
      { class: "muted" },
      user.email_verified
        ? t("inbox.verifiedHint")
        : t("inbox.unverifiedHint"),
    ),
    h("div", { class: "actions" }, button(t("inbox.refresh"), status, load), user.email_verified ? null : resend),
    status,
    mails,
  );
}
