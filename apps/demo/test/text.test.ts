import { describe, expect, it } from "vitest";
import { texts } from "../src/text.js";

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort();

describe("the demo's own texts", () => {
  const entries = Object.entries(texts);

  it("has every text in English and in Swahili, with the same placeholders", () => {
    expect(entries.length).toBeGreaterThan(100);
    for (const [key, text] of entries) {
      expect(Object.keys(text).sort(), key).toEqual(["en", "sw"]);
      expect(text.en.trim(), key).not.toBe("");
      expect(text.sw.trim(), key).not.toBe("");
      expect(placeholders(text.sw), key).toEqual(placeholders(text.en));
    }
  });

  it("says it in Swahili, not in English again (names like M-Pesa and PIN aside)", () => {
    const same = entries.filter(([, text]) => text.sw === text.en).map(([key]) => key);
    expect(same).toEqual([]);
  });

  it("follows the glossary: nambari ya kuthibitisha, nenosiri, KSh, polite Tafadhali", () => {
    expect(texts["common.authCode"].sw).toBe("Nambari ya kuthibitisha");
    expect(texts["account.password"].sw).toBe("Nenosiri");
    expect(texts["checkout.amount"].sw).toContain("KSh");
    const requests = entries.filter(([, text]) => /^Please |: enter |: add /.test(text.en));
    for (const [key, text] of requests) expect(text.sw, key).toMatch(/Tafadhali|tafadhali/);
  });
});
