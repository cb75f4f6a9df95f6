/** The ways into an account a removal must leave one of (docs/step-up.md#the-last-way-in). */
import { describe, expect, it } from "vitest";
import { methodsLeftWithout } from "../../src/auth/google/sign-in-methods.js";

const none = { hasPassword: false, phoneVerified: false, googleLinked: true, passkeys: 0 };

describe("the last way in", () => {
  it("leaves nothing when Google is the only way in", () => {
    expect(methodsLeftWithout(none, "google")).toBe(0);
  });

  it("counts a password, a verified phone and each passkey as ways that remain", () => {
    expect(methodsLeftWithout({ ...none, hasPassword: true }, "google")).toBe(1);
    expect(methodsLeftWithout({ ...none, phoneVerified: true }, "google")).toBe(1);
    expect(methodsLeftWithout({ ...none, passkeys: 2 }, "google")).toBe(2);
    expect(methodsLeftWithout({ hasPassword: true, phoneVerified: true, googleLinked: true, passkeys: 1 }, "google")).toBe(3);
  });
});
