import { describe, expect, it } from "vitest";
import { equalsConstantTime, secretMatcher } from "../../src/shared/secrets.js";

describe("equalsConstantTime (admin API key, callback token, metrics token)", () => {
  it("is true only for the same string", () => {
    expect(equalsConstantTime("test-admin-key-0123456789", "test-admin-key-0123456789")).toBe(true);
    expect(equalsConstantTime("", "")).toBe(true);
    expect(equalsConstantTime("test-admin-key-0123456788", "test-admin-key-0123456789")).toBe(false);
  });

  it("is false, without throwing, whatever the lengths", () => {
    expect(equalsConstantTime("test-admin-key", "test-admin-key-0123456789")).toBe(false);
    expect(equalsConstantTime("test-admin-key-0123456789-and-more", "test-admin-key-0123456789")).toBe(false);
    expect(equalsConstantTime("", "secret")).toBe(false);
  });
});

describe("secretMatcher (a secret checked on every callback, hashed once)", () => {
  it("answers as equalsConstantTime does, for any presented string", () => {
    const matches = secretMatcher("test-admin-key-0123456789");
    for (const presented of ["test-admin-key-0123456789", "test-admin-key-0123456788", "test-admin-key", "test-admin-key-0123456789-and-more", ""]) {
      expect(matches(presented), presented).toBe(equalsConstantTime(presented, "test-admin-key-0123456789"));
    }
    expect(secretMatcher("")("")).toBe(true);
  });
});
