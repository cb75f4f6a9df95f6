import { describe, expect, it } from "vitest";
import { worstCaseRequestMs } from "../src/index.js";

describe("worstCaseRequestMs", () => {
  it("covers every OAuth attempt and the request, twice (one token refresh on 404.001.03)", () => {
    // Token: 3 attempts of 10 s with 250 + 750 ms between them; the push: 10 s. Twice.
    expect(worstCaseRequestMs()).toBe(2 * (3 * 10_000 + 1_000 + 10_000));
    expect(worstCaseRequestMs({ timeoutMs: 400, retryDelaysMs: [] })).toBe(2 * (400 + 400));
  });

  it("with shared tokens, also covers waiting for another instance's token fetch", () => {
    expect(worstCaseRequestMs({ sharedTokens: true })).toBe(2 * (2 * (3 * 10_000 + 1_000) + 10_000));
  });
});
