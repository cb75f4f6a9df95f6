import { describe, expect, it } from "vitest";
import { csvCell, csvRecord } from "../../src/reports/csv.js";

describe("a CSV cell (RFC 4180, formula-safe)", () => {
  it("is written as it is when nothing in it needs care", () => {
    expect(csvCell("ORDER1001")).toBe("ORDER1001");
    expect(csvCell(1500)).toBe("1500");
    expect(csvCell(true)).toBe("true");
    expect(csvCell("2026-11-24T09:15:02+03:00")).toBe("2026-11-24T09:15:02+03:00");
  });

  it("is empty for no value", () => {
    expect(csvCell(null)).toBe("");
    expect(csvCell(undefined)).toBe("");
    expect(csvCell("")).toBe("");
  });

  it("is quoted when it holds a comma, a quote, CR or LF, its quotes doubled", () => {
    expect(csvCell("a,b")).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell("two\nlines")).toBe('"two\nlines"');
    expect(csvCell("cr\rhere")).toBe('"cr\rhere"');
  });

  it("begins with ' when it would begin a formula: =, +, -, @ (and tab or CR)", () => {
    expect(csvCell('=HYPERLINK("http://x")')).toBe('"\'=HYPERLINK(""http://x"")"');
    expect(csvCell("=1+2")).toBe("'=1+2");
    expect(csvCell("+254712345678")).toBe("'+254712345678");
    expect(csvCell("-5")).toBe("'-5");
    expect(csvCell("@SUM(A1)")).toBe("'@SUM(A1)");
    expect(csvCell("\t=1")).toBe("'\t=1");
    expect(csvCell("\r=1")).toBe('"\'\r=1"');
    expect(csvCell(-5)).toBe("'-5");
  });

  it("leaves those characters alone anywhere but at the start", () => {
    expect(csvCell("A=1")).toBe("A=1");
    expect(csvCell("a-b+c@d")).toBe("a-b+c@d");
    expect(csvCell(" =1")).toBe(" =1");
  });
});

describe("a CSV record", () => {
  it("joins its cells with commas and ends with CRLF", () => {
    expect(csvRecord(["time", "type", "amount"])).toBe("time,type,amount\r\n");
    expect(csvRecord(["a,b", null, "=x", 7])).toBe('"a,b",,\'=x,7\r\n');
  });
});
