import { describe, expect, it } from "vitest";
import { localeFromAcceptLanguage, preferredLocale, resolveLocale } from "../src/index.js";

describe("Accept-Language", () => {
  it.each([
    ["sw", "sw"],
    ["sw-KE", "sw"],
    ["SW-tz", "sw"],
    ["en-GB,en;q=0.9", "en"],
    ["fr-FR, sw;q=0.8, en;q=0.5", "sw"],
    ["en;q=0.4, sw-KE;q=0.9", "sw"],
    ["sw;q=0, en", "en"],
  ])("%s → %s", (header, locale) => {
    expect(localeFromAcceptLanguage(header)).toBe(locale);
  });

  it.each([undefined, "", "*", "fr", "de-DE;q=1", "swahili", "sw;q=0"])("%s names no supported language", (header) => {
    expect(localeFromAcceptLanguage(header)).toBeUndefined();
  });
});

describe("resolveLocale", () => {
  it("prefers the stored preference, then Accept-Language, then the tenant's setting, then English", () => {
    expect(resolveLocale({ preference: "sw", acceptLanguage: "en", tenantLocale: "en" })).toBe("sw");
    expect(resolveLocale({ preference: "en", acceptLanguage: "sw", tenantLocale: "sw" })).toBe("en");
    expect(resolveLocale({ preference: undefined, acceptLanguage: "sw-KE", tenantLocale: "en" })).toBe("sw");
    expect(resolveLocale({ preference: "fr", acceptLanguage: "fr", tenantLocale: "sw" })).toBe("sw");
    expect(resolveLocale({})).toBe("en");
  });

  it("reads a preference only from a supported preferences.locale", () => {
    expect(preferredLocale({ locale: "sw" })).toBe("sw");
    expect(preferredLocale({ locale: "xx" })).toBeUndefined();
    expect(preferredLocale(null)).toBeUndefined();
  });
});
