import { describe, expect, it } from "vitest";
import { storedUserAgent, USER_AGENT_MAX_LENGTH } from "../../src/shared/client-info.js";

describe("storedUserAgent", () => {
  it("keeps a user agent up to the limit whole and cuts a longer one to it", () => {
    expect(storedUserAgent("Mozilla/5.0")).toBe("Mozilla/5.0");
    expect(storedUserAgent("a".repeat(USER_AGENT_MAX_LENGTH))).toHaveLength(USER_AGENT_MAX_LENGTH);
    expect(storedUserAgent("b".repeat(USER_AGENT_MAX_LENGTH + 100))).toBe("b".repeat(USER_AGENT_MAX_LENGTH));
  });

  it("stores no user agent as null", () => {
    expect(storedUserAgent(undefined)).toBeNull();
  });
});
