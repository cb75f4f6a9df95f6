import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { DomainError, toErrorEnvelope } from "../../src/shared/errors.js";
import { createDataCipher } from "../../src/shared/data-cipher.js";
import { maskSecrets, revealSecret } from "../../src/tenants/daraja-secrets.js";
import { missingCredentialFields } from "../../src/shared/tenant-settings.js";
import { nextTenantSettings } from "../../src/tenants/settings-update.js";

const cipher = createDataCipher(randomBytes(32));
const stk = { shortcode: "700000", consumerKey: "k", consumerSecret: "s", passkey: "p" };

describe("tenant settings updates", () => {
  it("names the missing fields of each group present in part, and none of a group absent or complete", () => {
    expect(missingCredentialFields(undefined)).toEqual([]);
    expect(missingCredentialFields({ maxAmount: 5 })).toEqual([]);
    expect(missingCredentialFields(stk)).toEqual([]);
    expect(missingCredentialFields({ shortcode: "700000", initiatorName: "x" })).toEqual(["consumerKey", "consumerSecret", "passkey", "b2cShortcode", "securityCredential"]);
  });

  it("encrypts new secrets, keeps stored ones for \"set\", and the stored form reveals and masks", () => {
    const first = nextTenantSettings({}, { momo: stk }, { cipher, isDefaultTenant: false });
    expect(first.momo?.passkey).not.toBe("p");
    expect(revealSecret(cipher, first.momo!.passkey!)).toBe("p");
    const second = nextTenantSettings(first, { momo: { passkey: "set", consumerSecret: "s2" } }, { cipher, isDefaultTenant: false });
    expect(second.momo?.passkey).toBe(first.momo?.passkey);
    expect(revealSecret(cipher, second.momo!.consumerSecret!)).toBe("s2");
    expect(maskSecrets(second).momo).toEqual({ ...stk, consumerSecret: "set", passkey: "set" });
  });

  it("needs a till for a shop's own Buy Goods account", () => {
    expect(() => nextTenantSettings({}, { momo: { ...stk, transactionType: "CustomerBuyGoodsOnline" } }, { cipher, isDefaultTenant: false })).toThrow(DomainError);
    expect(nextTenantSettings({}, { momo: { ...stk, transactionType: "CustomerBuyGoodsOnline", tillNumber: "800800" } }, { cipher, isDefaultTenant: false }).momo?.tillNumber).toBe("800800");
  });

  it("reads a first-release clear secret as it is", () => {
    expect(revealSecret(cipher, "clear-passkey")).toBe("clear-passkey");
  });

  it("switches payouts on only with a B2C account (the default tenant may use the platform's)", () => {
    const refused = (() => {
      try {
        nextTenantSettings({}, { momo: { b2c: { enabled: true } } }, { cipher, isDefaultTenant: false });
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(DomainError);
    expect(toErrorEnvelope(refused).body.error.details).toEqual([{ path: "settings.momo.b2c.enabled", message: expect.stringMatching(/^payouts need the shop's own B2C account/) }]);
    expect(nextTenantSettings({}, { momo: { b2c: { enabled: true } } }, { cipher, isDefaultTenant: true }).momo?.b2c).toEqual({ enabled: true });
  });
});
