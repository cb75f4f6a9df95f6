/**
 * The language switch (English / Kiswahili): every request the page makes carries it as
 * Accept-Language, and a signed-in customer's choice is stored as preferences.locale (PUT me), so
 * their errors and mails follow it on any device (docs/i18n.md).
 */
import type { Shell } from "./shell.js";
import { chosenLanguage, currentLanguage, remember, type Language } from "./chosen-language.js";
import { describeError, h } from "./ui.js";

/**
 * The page's fetch, with the chosen language on every request (the client's calls, refreshes and
 * subscriptions); before a choice the browser sends its own Accept-Language.
 */
export function fetchInLanguage(base: typeof fetch): typeof fetch {
  return (input, init) => {
    const chosen = chosenLanguage();
    if (!chosen) return base(input, init);
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    headers.set("accept-language", chosen);
    return base(input, { ...init, headers });
  };
}

/** Follows the signed-in customer's stored choice, when they have one. */
export function adoptPreference(preferences: Record<string, unknown> | undefined): void {
  const stored = preferences?.locale;
  if (stored === "en" || stored === "sw") remember(stored);
}

/** The switch; `redraw` shows the page's own labels in the new language (a signed-in reload redraws too). */
export function languageSwitch(shell: Shell, redraw: () => void, onError: (message: string) => void): HTMLSelectElement {
  const select = h(
    "select",
    { id: "language", "aria-label": "Language / Lugha" },
    h("option", { value: "en" }, "English"),
    h("option", { value: "sw" }, "Kiswahili"),
  );
  select.value = currentLanguage();
  document.documentElement.lang = select.value;
  select.addEventListener("change", () => {
    const language: Language = select.value === "sw" ? "sw" : "en";
    remember(language);
    if (!shell.user) return redraw();
    shell.mteja.api.profile.updateMe
      .mutate({ preferences: { locale: language } })
      .then(() => shell.reload())
      .catch((error: unknown) => onError(describeError(error)));
  });
  return select;
}
