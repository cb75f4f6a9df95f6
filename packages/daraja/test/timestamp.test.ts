import { describe, expect, it } from "vitest";
import { darajaTimestamp, parseDarajaTimestamp, stkPassword } from "../src/index.js";

const SHORTCODE = "174379";
const PASSKEY = "bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919";
// The portal's STK sample (docs/daraja-wire-format.md#stk-push-request).
const PORTAL_PASSWORD =
  "MTc0Mzc5YmZiMjc5ZjlhYTliZGJjZjE1OGU5N2RkNzFhNDY3Y2QyZTBjODkzMDU5YjEwZjc4ZTZiNzJhZGExZWQyYzkxOTIwMjEwNjI4MDkyNDA4";

describe("stkPassword", () => {
  it("matches the portal's golden vector", () => {
    expect(stkPassword(SHORTCODE, PASSKEY, "20210628092408")).toBe(PORTAL_PASSWORD);
  });

  it("depends on every part", () => {
    expect(stkPassword(SHORTCODE, PASSKEY, "20210628092409")).not.toBe(PORTAL_PASSWORD);
    expect(stkPassword("174378", PASSKEY, "20210628092408")).not.toBe(PORTAL_PASSWORD);
  });
});

describe("darajaTimestamp", () => {
  it("is Nairobi wall-clock time (UTC+3)", () => {
    expect(darajaTimestamp(new Date("2021-06-28T06:24:08Z"))).toBe("20210628092408");
  });

  it("rolls over the date and year in Nairobi before UTC does", () => {
    expect(darajaTimestamp(new Date("2024-12-31T21:00:00Z"))).toBe("20250101000000");
    expect(darajaTimestamp(new Date("2024-12-31T20:59:59Z"))).toBe("20241231235959");
  });

  it("zero-pads every field", () => {
    expect(darajaTimestamp(new Date("2025-01-02T00:04:05Z"))).toBe("20250102030405");
  });

  it("gives the portal Password when the clock reads the sample's time", () => {
    expect(stkPassword(SHORTCODE, PASSKEY, darajaTimestamp(new Date("2021-06-28T06:24:08Z")))).toBe(PORTAL_PASSWORD);
  });
});

describe("parseDarajaTimestamp", () => {
  it("round-trips with darajaTimestamp", () => {
    const at = new Date("2024-07-06T19:48:52Z");
    expect(parseDarajaTimestamp(darajaTimestamp(at))?.toISOString()).toBe(at.toISOString());
  });

  it.each(["2021062809240", "202106280924081", "2021-06-28 09:24", "20210230120000", "20211328092408", "20210628250000"])(
    "rejects %s",
    (value) => {
      expect(parseDarajaTimestamp(value)).toBeNull();
    },
  );
});
