import { describe, expect, it } from "vitest";
import { LOCALES, formatMoney, formatWhen, messages, placeholdersOf, t, translate } from "../src/index.js";

const entries = Object.entries(messages) as [string, Record<string, unknown>][];

describe("the message catalogue", () => {
  it("has every key in both languages, non-empty, and nothing else", () => {
    expect(entries.length).toBeGreaterThan(100);
    for (const [key, entry] of entries) {
      expect(Object.keys(entry).sort(), key).toEqual([...LOCALES].sort());
      for (const locale of LOCALES) expect(typeof entry[locale] === "string" && (entry[locale] as string).trim() !== "", `${key}.${locale}`).toBe(true);
    }
  });

  it("uses the same placeholders in both languages", () => {
    for (const [key, entry] of entries) {
      expect(placeholdersOf(entry.sw as string), key).toEqual(placeholdersOf(entry.en as string));
    }
  });

  it("has only well-formed placeholders: every brace belongs to {name} or {name:money}", () => {
    for (const [key, entry] of entries) {
      for (const locale of LOCALES) {
        const rest = (entry[locale] as string).replace(/\{[a-zA-Z_]+(?::money)?\}/g, "");
        expect(rest, `${key}.${locale}`).not.toMatch(/[{}]/);
      }
    }
  });

  it("is translated: a Swahili text differs from its English one unless it is only placeholders", () => {
    for (const [key, entry] of entries) {
      if (/^(\{[a-z_]+\}\s*)+$/.test(entry.en as string)) continue;
      expect(entry.sw, key).not.toBe(entry.en);
    }
  });

  it("renders params, money the Kenyan way in Swahili", () => {
    expect(translate("en", { key: "detail.amount_below_shop_min", params: { min: 1500 } })).toBe("amount must be at least 1500 for this shop");
    expect(translate("sw", { key: "detail.amount_below_shop_min", params: { min: 1500 } })).toBe("amount lazima iwe angalau KSh 1,500 kwa duka hili");
    expect(translate("sw", "error.INVALID_OTP")).toBe("Nambari ya kuthibitisha si sahihi.");
    expect(t("sw", "mail.greeting", { name: "Amina" })).toBe("Habari Amina,");
  });
});

describe("formats", () => {
  it("writes shillings as KSh 1,500", () => {
    expect(formatMoney(1500)).toBe("KSh 1,500");
    expect(formatMoney(250000)).toBe("KSh 250,000");
    expect(formatMoney(10)).toBe("KSh 10");
  });

  it("writes dates in Nairobi time, on the 24-hour clock in Swahili", () => {
    const when = new Date("2026-11-25T12:52:00Z");
    expect(formatWhen(when, "sw")).toBe("Jumatano, 25 Novemba 2026 saa 15:52 (saa za Afrika Mashariki)");
    expect(formatWhen(when, "en")).toMatch(/^Wednesday, 25 November 2026 at 15:52 \(East Africa Time\)$/);
  });
});
