/**
 * Account: register, sign in (with the two-factor step when the account has it), and, once signed in,
 * the profile and the dev outbox, where the verification link is followed.
 */
import { linkParams, mailCard, readOutbox } from "./outbox.js";
import { phoneSignInCard } from "./phone.js";
import type { Screen, Shell } from "./shell.js";
import { button, field, h, notice, onSubmit } from "./ui.js";

export const accountScreen: Screen = (shell) => (shell.user ? signedInView(shell) : signedOutView(shell));

function signedOutView(shell: Shell): HTMLElement {
  return h(
    "section",
    { class: "grid" },
    registerCard(shell),
    signInCard(shell),
    phoneSignInCard(shell, (otpToken, status, startOver) => otpStep(shell, otpToken, status, startOver)),
  );
}

function registerCard(shell: Shell): HTMLElement {
  const status = notice();
  const form = h(
    "form",
    { id: "register" },
    field("Full name", "name", { required: true, autocomplete: "name" }),
    field("Email", "email", { type: "email", required: true, autocomplete: "email" }),
    field("Phone (optional)", "phone", { type: "tel", placeholder: "0712 345 678", autocomplete: "tel" }),
    field("Password", "password", { type: "password", required: true, minlength: 8, autocomplete: "new-password" }),
    h("button", { type: "submit" }, "Create account"),
  );
  onSubmit(form, status, async ({ name = "", email = "", phone = "", password = "" }) => {
    // register answers with an access token and sets the refresh cookie: the customer is signed in.
    const result = await shell.mteja.api.auth.register.mutate({ name, email, password, ...(phone.trim() ? { phone } : {}) });
    await shell.reload(result.message);
  });
  return h("article", { class: "card" }, h("h2", {}, "Create an account"), form, status);
}

function signInCard(shell: Shell): HTMLElement {
  const status = notice();
  const card = h("article", { class: "card" }, h("h2", {}, "Sign in"));
  const form = h(
    "form",
    { id: "sign-in" },
    field("Email", "email", { type: "email", required: true, autocomplete: "username" }),
    field("Password", "password", { type: "password", required: true, autocomplete: "current-password" }),
    h("button", { type: "submit" }, "Sign in"),
  );
  onSubmit(form, status, async ({ email = "", password = "" }) => {
    const { data } = await shell.mteja.api.auth.login.mutate({ email, password });
    if (data.requires_otp) {
      const step = otpStep(shell, data.otp_token, status, () => {
        status.clear();
        step.replaceWith(form);
      });
      form.replaceWith(step);
      return "Two-factor is on for this account: enter the code from your authenticator app.";
    }
    await shell.reload();
  });
  card.append(form, status);
  return card;
}

/** The second step of a two-factor sign-in: the otp_token from login and a code (or a recovery code). */
function otpStep(shell: Shell, otpToken: string, status: ReturnType<typeof notice>, startOver: () => void): HTMLFormElement {
  const back = h("button", { type: "button", class: "secondary" }, "Start over");
  back.addEventListener("click", startOver);
  const form = h(
    "form",
    { id: "otp-step" },
    field("Authentication code", "code", { required: true, inputmode: "numeric", autocomplete: "one-time-code", placeholder: "123 456" }),
    h("p", { class: "muted" }, "Lost your phone? Enter one of your recovery codes instead. The sign-in attempt lasts 5 minutes."),
    h("div", { class: "actions" }, h("button", { type: "submit" }, "Verify and sign in"), back),
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
    h("h2", {}, "Your account"),
    h(
      "dl",
      {},
      h("dt", {}, "Name"),
      h("dd", {}, user.name ?? "—"),
      h("dt", {}, "Email"),
      user.email === null
        ? h("dd", {}, "—")
        : h("dd", {}, user.email, " ", user.email_verified ? h("span", { class: "badge ok", id: "email-state" }, "verified") : h("span", { class: "badge warn", id: "email-state" }, "not verified")),
      h("dt", {}, "Phone"),
      h("dd", {}, user.phone ?? "—", " ", user.phone ? h("span", { class: user.phone_verified ? "badge ok" : "badge warn", id: "phone-state" }, user.phone_verified ? "verified" : "not verified") : null),
      h("dt", {}, "Two-factor"),
      h("dd", {}, user.otp_enabled ? "on" : "off", " · ", h("a", { href: "#two-factor" }, "manage")),
    ),
  );
  // An account made by phone sign-in has no email, so no inbox.
  return h("section", { class: "grid" }, profile, user.email === null ? null : inboxCard(shell));
}

/** The dev outbox for this customer; a verification link gets a button that spends its token here. */
function inboxCard(shell: Shell): HTMLElement {
  const user = shell.user!;
  const status = notice();
  const mails = h("div", { id: "inbox", class: "mails" });

  const verifyButton = (link: string) => {
    const params = linkParams(link, "verify-email");
    if (!params || user.email_verified) return undefined;
    return button("Verify my email with this link", status, async () => {
      const result = await shell.mteja.api.auth.verifyEmail.mutate(params);
      await shell.reload(result.message);
    });
  };
  const load = async () => {
    const found = await readOutbox(user.email ?? "", shell.tenantId);
    mails.replaceChildren(...(found.length ? found.map((mail) => mailCard(mail, verifyButton)) : [h("p", { class: "muted" }, "No mail yet.")]));
  };
  const resend = button("Send a new verification link", status, async () => {
    const result = await shell.mteja.api.auth.resendVerificationEmail.mutate();
    await load();
    return result.message;
  });
  load().catch((error: unknown) => status.show("error", error instanceof Error ? error.message : String(error)));

  return h(
    "article",
    { class: "card" },
    h("h2", {}, "Inbox ", h("small", {}, "(dev outbox)")),
    h(
      "p",
      { class: "muted" },
      user.email_verified
        ? "The mails the shop sent you. Without SMTP the service keeps them in its outbox (GET /dev/outbox)."
        : "We sent you a verification link. Without SMTP the service keeps it in its outbox: follow it here.",
    ),
    h("div", { class: "actions" }, button("Refresh", status, load), user.email_verified ? null : resend),
    status,
    mails,
  );
}
