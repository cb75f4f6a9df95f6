import { describe, expect, it } from "vitest";
import { darajaAccountFor, type AccountRules } from "../../src/tenants/daraja-accounts.js";

const rules: AccountRules = {
  platform: {
    consumerKey: "platform-key",
    consumerSecret: "platform-secret",
    shortcode: "600000",
    passkey: "platform-passkey",
    transactionType: "CustomerBuyGoodsOnline",
    tillNumber: "500500",
    b2c: { shortcode: "600001", initiatorName: "platform", securityCredential: "cGxhdGZvcm0=" },
  },
  defaultTenantId: "default",
  reveal: (stored) => stored.replace(/^sealed:/, ""),
};
const stk = { shortcode: "700000", consumerKey: "shop-key", consumerSecret: "sealed:shop-secret", passkey: "sealed:shop-passkey" };
const b2c = { b2cShortcode: "700001", initiatorName: "shop", securityCredential: "sealed:c2hvcA==" };

describe("whose M-Pesa account a tenant uses", () => {
  it("a shop with its own STK group: its own app and short code (secrets revealed), pay bill unless it names a till, never the platform's till", () => {
    expect(darajaAccountFor({ id: "duka", settings: { momo: stk } }, rules)).toEqual({
      consumerKey: "shop-key",
      consumerSecret: "shop-secret",
      shortcode: "700000",
      passkey: "shop-passkey",
      transactionType: "CustomerPayBillOnline",
    });
    expect(darajaAccountFor({ id: "duka", settings: { momo: { ...stk, transactionType: "CustomerBuyGoodsOnline", tillNumber: "800800" } } }, rules)).toMatchObject({
      shortcode: "700000",
      transactionType: "CustomerBuyGoodsOnline",
      partyB: "800800",
    });
  });

  it("a shop with part of a group has no account at all (never the platform's)", () => {
    expect(darajaAccountFor({ id: "duka", settings: { momo: { shortcode: "700000", passkey: "x" } } }, rules)).toBeNull();
    expect(darajaAccountFor({ id: "default", settings: { momo: { consumerKey: "k" } } }, rules)).toBeNull();
  });

  it("a shop without its own group: the platform's, into its own till if it names one", () => {
    expect(darajaAccountFor({ id: "duka", settings: {} }, rules)).toEqual({
      consumerKey: "platform-key",
      consumerSecret: "platform-secret",
      shortcode: "600000",
      passkey: "platform-passkey",
      transactionType: "CustomerBuyGoodsOnline",
      partyB: "500500",
    });
    expect(darajaAccountFor({ id: "duka", settings: { momo: { tillNumber: "900900" } } }, rules)).toMatchObject({ shortcode: "600000", partyB: "900900" });
  });

  it("payouts: the shop's own B2C group; else the platform's for the default tenant only; a partial group gives none", () => {
    expect(darajaAccountFor({ id: "duka", settings: { momo: { ...stk, ...b2c } } }, rules)).toMatchObject({ b2cShortcode: "700001", initiatorName: "shop", securityCredential: "c2hvcA==" });
    expect(darajaAccountFor({ id: "duka", settings: { momo: b2c } }, rules)).toMatchObject({ shortcode: "600000", b2cShortcode: "700001" });
    expect(darajaAccountFor({ id: "default", settings: {} }, rules)).toMatchObject({ b2cShortcode: "600001", initiatorName: "platform" });
    expect(darajaAccountFor({ id: "duka", settings: {} }, rules)).not.toHaveProperty("b2cShortcode");
    expect(darajaAccountFor({ id: "default", settings: { momo: { b2cShortcode: "700001" } } }, rules)).not.toHaveProperty("b2cShortcode");
  });
});
