import { describe, expect, it } from "vitest";
import { classifyB2cResultCode, classifyStkResultCode } from "../src/index.js";

describe("classifyStkResultCode", () => {
  it.each([
    [0, "SUCCESS"],
    ["0", "SUCCESS"],
    [1032, "CANCELLED"],
    ["1032", "CANCELLED"],
    [1037, "TIMEOUT"],
    ["1019", "TIMEOUT"],
    [4999, "PENDING"],
    ...["1", "2", "3", "4", "8", "17", "1001", "1025", "2001", "2028", "8006", "SFC_IC0003", "9999"].map((code) => [code, "FAILED"] as const),
  ] as const)("%j → %s", (code, status) => {
    expect(classifyStkResultCode(code)).toBe(status);
  });

  it.each(["5555", "1031", "", "abc", null, undefined, 26])("treats %j as UNKNOWN, never FAILED", (code) => {
    expect(classifyStkResultCode(code)).toBe("UNKNOWN");
  });
});

describe("classifyB2cResultCode", () => {
  it.each([
    [0, "SUCCESS"],
    ["0", "SUCCESS"],
    [1, "FAILED"],
    ["2001", "FAILED"],
    ["SFC_IC0003", "FAILED"],
    [2040, "FAILED"],
    ["17", "UNKNOWN"],
    [4999, "UNKNOWN"],
    [null, "UNKNOWN"],
  ] as const)("%j → %s", (code, status) => {
    expect(classifyB2cResultCode(code)).toBe(status);
  });
});
