import { describe, expect, it } from "vitest";
import { maskPhone } from "../../src/data-rights/mask-phone.js";
import { dataRightsNoticeTexts, noticeLocaleOf } from "../../src/data-rights/notice-texts.js";

describe("maskPhone", () => {
  it("keeps the country code and the last three digits", () => {
    expect(maskPhone("254712345678")).toBe("254******678");
    expect(maskPhone("254110000123")).toBe("254******123");
  });

  it("leaves a masked value as it is, and hides a short one entirely", () => {
    expect(maskPhone("254******678")).toBe("254******678");
    expect(maskPhone("12345")).toBe("*****");
  });

  it("drops anything but digits", () => {
    expect(maskPhone("+254 712 345 678")).toBe("254******678");
  });
});

describe("data-rights notices", () => {
  it("chooses Swahili only for a customer whose stored language is Swahili", () => {
    expect(noticeLocaleOf({ locale: "sw" })).toBe("sw");
    expect(noticeLocaleOf({ locale: "en" })).toBe("en");
    expect(noticeLocaleOf({ locale: "fr" })).toBe("en");
    expect(noticeLocaleOf({})).toBe("en");
    expect(noticeLocaleOf(null)).toBe("en");
  });

  it("has every notice in English and Swahili, naming the shop and the time", () => {
    for (const [notice, texts] of Object.entries(dataRightsNoticeTexts)) {
      expect(Object.keys(texts).sort(), notice).toEqual(["en", "sw"]);
      for (const text of Object.values(texts)) {
        expect(text.subject("Duka Bora")).toContain("Duka Bora");
        expect(text.paragraphs("Duka Bora", "WHEN").join(" ")).toContain("WHEN");
      }
    }
    expect(dataRightsNoticeTexts.accountDeleted.sw.subject("Duka")).not.toBe(dataRightsNoticeTexts.accountDeleted.en.subject("Duka"));
  });
});
