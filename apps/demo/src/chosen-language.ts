/** The language the visitor chose on this page (kept in localStorage), else the browser's own. */
export type Language = "en" | "sw";
const storageKey = "mteja-demo-language";

/** The visitor's choice, if they made one on this page. */
export function chosenLanguage(): Language | undefined {
  const stored = localStorage.getItem(storageKey);
  return stored === "sw" || stored === "en" ? stored : undefined;
}

/** The choice, else the browser's own language. */
export function currentLanguage(): Language {
  return chosenLanguage() ?? (navigator.language.toLowerCase().startsWith("sw") ? "sw" : "en");
}

export function remember(language: Language): void {
  localStorage.setItem(storageKey, language);
  document.documentElement.lang = language;
}
