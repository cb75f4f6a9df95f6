/** The pure rules of step-up (docs/step-up.md): freshness, a complete body proof, the conditions, the reauthenticate proof. */
import { describe, expect, it } from "vitest";
import type { TenantDb } from "@mteja/db";
import type { StepUpAccount } from "../../src/shared/operation-meta.js";
import { carriesCompleteProof, isFresh } from "../../src/auth/step-up/require-step-up.js";
import { changesEmailOrAddsOneBesideAPassword } from "../../src/auth/step-up/conditions.js";
import { startsAnotherPhone } from "../../src/auth/phone/phone-step-up.js";
import { proofOf } from "../../src/auth/step-up/proofs.js";
import { DomainError } from "../../src/shared/errors.js";

const account: StepUpAccount = {
  isGuest: false,
  id: "6f1c0e56-3b1a-4c52-9d0e-2f4b8a7c1d90",
  tenantId: "default",
  email: "wanjiku@example.com",
  phone: "254712345678",
  phoneVerified: true,
  otpEnabled: false,
  hasPassword: true,
};
const db = {} as TenantDb;

describe("a fresh session", () => {
  const now = new Date("2026-11-28T10:00:00.000Z");
  it("is fresh strictly before its fresh_until; a session without one (older than the column) never is", () => {
    expect(isFresh({ fresh_until: new Date(now.getTime() + 1) }, now)).toBe(true);
    expect(isFresh({ fresh_until: now }, now)).toBe(false);
    expect(isFresh({ fresh_until: null }, now)).toBe(false);
  });
});

describe("a complete body proof", () => {
  it("is the named password field for an account with a password", () => {
    expect(carriesCompleteProof({ current_password: "secret" }, "current_password", account)).toBe(true);
    expect(carriesCompleteProof({ password: "secret" }, "current_password", account)).toBe(false);
    expect(carriesCompleteProof({ current_password: "  " }, "current_password", account)).toBe(false);
    expect(carriesCompleteProof({ current_password: 42 }, "current_password", account)).toBe(false);
    expect(carriesCompleteProof({ sms_code: "123456" }, "current_password", account)).toBe(false);
    expect(carriesCompleteProof(undefined, "password", account)).toBe(false);
  });

  it("is an sms_code for an account without a password, only while it has a verified phone", () => {
    const phoneOnly = { ...account, hasPassword: false, email: null };
    expect(carriesCompleteProof({ sms_code: "123456" }, "password", phoneOnly)).toBe(true);
    expect(carriesCompleteProof({ password: "secret" }, "password", phoneOnly)).toBe(false);
    expect(carriesCompleteProof({ sms_code: "123456" }, "password", { ...phoneOnly, phoneVerified: false })).toBe(false);
  });

  it("needs the two-factor code as well while two-factor is on", () => {
    const twoFactor = { ...account, otpEnabled: true };
    expect(carriesCompleteProof({ password: "secret" }, "password", twoFactor)).toBe(false);
    expect(carriesCompleteProof({ password: "secret", code: "123456" }, "password", twoFactor)).toBe(true);
    expect(carriesCompleteProof({ code: "123456" }, "password", twoFactor)).toBe(false);
  });
});

describe("conditions", () => {
  it("me/phone/start is sensitive for any phone but the verified one, and when the input cannot be read", async () => {
    expect(await startsAnotherPhone({ account, input: { phone: "0712345678" }, db })).toBe(false);
    expect(await startsAnotherPhone({ account, input: { phone: "+254 712 345 678" }, db })).toBe(false);
    expect(await startsAnotherPhone({ account, input: {}, db })).toBe(false);
    expect(await startsAnotherPhone({ account, input: undefined, db })).toBe(false);
    expect(await startsAnotherPhone({ account, input: { phone: "0712345679" }, db })).toBe(true);
    expect(await startsAnotherPhone({ account, input: { phone: "not a phone" }, db })).toBe(true);
    expect(await startsAnotherPhone({ account, input: [], db })).toBe(true);
    // The account's phone is not verified: no phone is its verified phone.
    expect(await startsAnotherPhone({ account: { ...account, phoneVerified: false }, input: {}, db })).toBe(true);
    expect(startsAnotherPhone.description).toBe("the phone is not the account's verified phone");
  });

  it("an email change is sensitive once the account has an email or a password, not for a phone-only account's first one", async () => {
    expect(await changesEmailOrAddsOneBesideAPassword({ account, input: {}, db })).toBe(true);
    expect(await changesEmailOrAddsOneBesideAPassword({ account: { ...account, email: null, hasPassword: true }, input: {}, db })).toBe(true);
    expect(await changesEmailOrAddsOneBesideAPassword({ account: { ...account, email: null, hasPassword: false }, input: {}, db })).toBe(false);
  });
});

describe("the reauthenticate proof", () => {
  it("is one of password and sms_code, with the code when given", () => {
    expect(proofOf({ password: "secret" })).toEqual({ kind: "password", password: "secret", code: undefined });
    expect(proofOf({ sms_code: "123456", code: "654321" })).toEqual({ kind: "sms_code", smsCode: "123456", code: "654321" });
    expect(proofOf({ password: "secret", code: " " })).toEqual({ kind: "password", password: "secret", code: undefined });
    for (const input of [{}, { code: "123456" }, { password: "secret", sms_code: "123456" }]) {
      expect(() => proofOf(input)).toThrow(DomainError);
    }
  });
});
