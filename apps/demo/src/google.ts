/**
 * Sign in with Google, the redirect flow (docs/sign-in.md#the-redirect-flow): the button is a plain
 * navigation to the service's /start, which sends the browser to Google (on `npm start`, the local
 * Google simulator) and back to this page, signed in through the refresh cookie. A failure comes
 * back as `?error=<CODE>`, a two-factor account as `#otp_token=…`: read once at load, then removed
 * from the address bar.
 */
import type { GoogleReturn, Shell } from "./shell.js";
import { h, notice } from "./ui.js";
import { t } from "./text.js";

/** Reads `?error=` and `#otp_token=` from the address and takes them out of it. */
export function takeGoogleReturn(): GoogleReturn | undefined {
  const url = new URL(location.href);
  const error = url.searchParams.get("error") ?? undefined;
  const otpToken = url.hash.startsWith("#otp_token=") ? decodeURIComponent(url.hash.slice("#otp_token=".length)) : undefined;
  if (!error && !otpToken) return undefined;
  history.replaceState(null, "", url.pathname);
  return { ...(error ? { error } : {}), ...(otpToken ? { otpToken } : {}) };
}

export function googleSignInCard(
  shell: Shell,
  twoFactorStep: (otpToken: string, status: ReturnType<typeof notice>, startOver: () => void) => HTMLFormElement,
): HTMLElement {
  const status = notice();
  const back = `${location.origin}${location.pathname}`;
  const start = `/api/v1/auth/oidc/google/start?${new URLSearchParams({ tenant: shell.tenantId, redirect_uri: back })}`;
  const link = h("a", { href: start, id: "google-sign-in", class: "button" }, t("google.button"));
  const card = h("article", { class: "card", id: "google" }, h("h2", {}, t("google.title")), h("p", { class: "muted" }, t("google.hint")), link, status);
  const returned = shell.googleReturn;
  shell.googleReturn = undefined;
  if (returned?.error) status.show("error", t("google.failed", { code: returned.error }));
  if (returned?.otpToken) {
    const step = twoFactorStep(returned.otpToken, status, () => {
      status.clear();
      step.replaceWith(link);
    });
    link.replaceWith(step);
    status.show("info", t("common.twoFactorNeeded"));
  }
  return card;
}
