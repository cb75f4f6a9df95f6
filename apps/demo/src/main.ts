/**
 * The demo shop: one client for the page (same origin as the service, tenant "default"), a screen per
 * step of the flow, chosen by the URL's hash. Signed-out visitors only see the account screen.
 */
import { createMtejaClient, isMtejaError } from "@mteja/client";
import { addressesScreen } from "./addresses.js";
import { accountScreen } from "./auth.js";
import { checkoutScreen } from "./checkout.js";
import { devicesScreen } from "./devices.js";
import { adoptPreference, fetchInLanguage, languageSwitch } from "./language.js";
import { mailLinkScreen } from "./mail-links.js";
import { myDataScreen } from "./my-data.js";
import { screenNames, type Screen, type ScreenName, type Shell } from "./shell.js";
import { twoFactorScreen } from "./two-factor.js";
import { takeGoogleReturn } from "./google.js";
import { describeError, h } from "./ui.js";
import "./style.css";
import { t } from "./text.js";

const screens: Record<ScreenName, Screen> = {
  account: accountScreen,
  "two-factor": twoFactorScreen,
  addresses: addressesScreen,
  checkout: checkoutScreen,
  devices: devicesScreen,
  "my-data": myDataScreen,
};

function start(): void {
  const app = document.querySelector<HTMLElement>("#app")!;
  const tabs = document.querySelector<HTMLElement>("#tabs")!;
  const who = document.querySelector<HTMLElement>("#who")!;
  let leaving = new AbortController();
  let flash: string | undefined;

  const mteja = createMtejaClient({
    baseUrl: location.origin,
    tenantId: "default",
    fetch: fetchInLanguage((input, init) => globalThis.fetch(input, init)),
    // A refresh that failed (session over) or a sign-out: back to the sign-in screen.
    onAccessToken: (token) => {
      if (token === null && shell.user) shell.signedOut();
    },
  });

  // A link from an account mail (APP_URL/verify-email, APP_URL/reset-password): that page alone.
  const mailLink = mailLinkScreen(mteja, new URL(location.href));
  if (mailLink) {
    app.replaceChildren(mailLink);
    return;
  }

  const current = (): ScreenName => {
    const wanted = location.hash.slice(1) as ScreenName;
    return shell.user && screenNames.includes(wanted) ? wanted : "account";
  };

  const draw = () => {
    leaving.abort();
    leaving = new AbortController();
    const name = current();
    tabs.replaceChildren(
      ...screenNames
        .filter((screen) => shell.user || screen === "account")
        .map((screen) => h("a", { href: `#${screen}`, class: screen === name ? "active" : undefined, "aria-current": screen === name ? "page" : undefined, "data-screen": screen }, t(`tab.${screen}`))),
    );
    who.replaceChildren(...(shell.user ? [h("span", { id: "signed-in-as" }, shell.user.name ?? shell.user.phone ?? ""), signOutButton()] : [h("span", { class: "muted" }, t("shell.notSignedIn"))]));
    const banner = flash ? h("p", { class: "notice ok", role: "status" }, flash) : null;
    flash = undefined;
    app.replaceChildren(...[banner, screens[name](shell, leaving.signal)].filter((node): node is HTMLElement => node !== null));
  };

  const signOutButton = () => {
    const element = h("button", { type: "button", class: "secondary", id: "sign-out" }, t("shell.signOut"));
    element.addEventListener("click", () => {
      mteja.logout().finally(() => shell.signedOut());
    });
    return element;
  };

  const shell: Shell = {
    mteja,
    tenantId: "default",
    user: null,
    async reload(message) {
      const { data } = await mteja.api.profile.me.query();
      shell.user = data;
      adoptPreference(data.preferences);
      language.value = data.preferences.locale === "sw" ? "sw" : data.preferences.locale === "en" ? "en" : language.value;
      flash = message;
      draw();
    },
    signedOut() {
      shell.user = null;
      flash = t("shell.signedOut");
      if (location.hash) history.replaceState(null, "", location.pathname);
      draw();
    },
    go(screen) {
      location.hash = screen;
    },
    googleReturn: takeGoogleReturn(),
  };

  const language = languageSwitch(shell, draw, (message) => {
    flash = message;
    draw();
  });
  document.querySelector<HTMLElement>("#language-switch")!.replaceChildren(language);

  window.addEventListener("hashchange", draw);
  // A session survives a reload through the refresh cookie (HttpOnly, Path=/api/v1/auth): try it once.
  mteja
    .refresh()
    .then(() => shell.reload())
    .catch((error: unknown) => {
      if (!isMtejaError(error, "AUTH_REQUIRED", "INVALID_TOKEN")) flash = describeError(error);
      draw();
    });
}

start();
