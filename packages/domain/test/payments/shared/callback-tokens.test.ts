/** The callback tokens per shop (src/payments/shared/callback-tokens.ts) and which rows a callback may touch (shared/callback-authority.ts). */
import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createCallbackTokens, tenantCallbackUrl, tenantFromParameter } from "../../../src/payments/shared/callback-tokens.js";
import { authorityOfStored, refusalOf } from "../../../src/payments/shared/callback-authority.js";

const secret = "a".repeat(64);
const hex = (text: string) => Buffer.from(text).toString("hex");

describe("callback tokens", () => {
  const tokens = createCallbackTokens(secret);

  it("derives each shop's token as HMAC-SHA256(secret, 'momo-callback:' + tenant id) in hex", () => {
    expect(tokens.tokenFor("shop-a")).toBe(createHmac("sha256", secret).update("momo-callback:shop-a").digest("hex"));
    expect(tokens.tokenFor("shop-a")).not.toBe(tokens.tokenFor("shop-b"));
    expect(createCallbackTokens("b".repeat(64)).tokenFor("shop-a")).not.toBe(tokens.tokenFor("shop-a"));
  });

  it("authenticates a shop's own token for that shop only, the secret itself as the old form, and nothing else", () => {
    expect(tokens.authenticate(hex("shop-a"), tokens.tokenFor("shop-a"))).toEqual({ form: "tenant", tenantId: "shop-a" });
    expect(tokens.authenticate(hex("shop-b"), tokens.tokenFor("shop-a"))).toBeUndefined();
    expect(tokens.authenticate(undefined, tokens.tokenFor("shop-a"))).toBeUndefined();
    expect(tokens.authenticate(undefined, secret)).toEqual({ form: "shared" });
    expect(tokens.authenticate(hex("shop-a"), secret)).toEqual({ form: "shared" });
    expect(tokens.authenticate(hex("shop-a"), undefined)).toBeUndefined();
    expect(tokens.authenticate(hex("shop-a"), "0".repeat(64))).toBeUndefined();
  });

  it("reads `tenant=` only as a tenant id in hex", () => {
    expect(tenantFromParameter(hex("default"))).toBe("default");
    expect(tenantFromParameter("default")).toBeUndefined();
    expect(tenantFromParameter(hex("Shop A"))).toBeUndefined();
    expect(tenantFromParameter(hex("a"))).toBeUndefined();
    expect(tenantFromParameter("6")).toBeUndefined();
    expect(tenantFromParameter(undefined)).toBeUndefined();
  });

  it("puts the shop's token and name in a callback URL, replacing a token it had, in hex that spells no word Daraja refuses", () => {
    const url = tenantCallbackUrl(tokens, `https://shop.example.com/api/momo/callback/stkpush?token=${secret}`, "sql-exe-shop")!;
    const parsed = new URL(url);
    expect(parsed.searchParams.get("token")).toBe(tokens.tokenFor("sql-exe-shop"));
    expect(parsed.searchParams.get("tenant")).toBe(hex("sql-exe-shop"));
    expect(url).not.toContain(secret);
    expect(url).not.toMatch(/sql|exe/);
    expect(tenantCallbackUrl(null, "https://shop.example.com/x", "a1")).toBeNull();
    expect(tenantCallbackUrl(tokens, null, "a1")).toBeNull();
  });
});

describe("callback authority", () => {
  it("lets a shop's token touch only that shop's rows, whatever form they were sent with", () => {
    const own = { form: "tenant" as const, tenantId: "shop-a" };
    expect(refusalOf(own, { tenantId: "shop-a", callbackTokenForm: "tenant" })).toBeUndefined();
    expect(refusalOf(own, { tenantId: "shop-a", callbackTokenForm: "shared" })).toBeUndefined();
    expect(refusalOf(own, { tenantId: "shop-b", callbackTokenForm: "tenant" })).toMatch(/another shop/);
    expect(refusalOf(own, { tenantId: "shop-b", callbackTokenForm: "shared" })).toMatch(/another shop/);
  });

  it("lets the shared secret (the old form) touch only rows sent with it", () => {
    expect(refusalOf({ form: "shared" }, { tenantId: "shop-a", callbackTokenForm: "shared" })).toBeUndefined();
    expect(refusalOf({ form: "shared" }, { tenantId: "shop-a", callbackTokenForm: "tenant" })).toMatch(/old form/);
  });

  it("reads a stored callback's authority from its token_tenant_id (null: the shared secret, or stored before)", () => {
    expect(authorityOfStored(null)).toEqual({ form: "shared" });
    expect(authorityOfStored("shop-a")).toEqual({ form: "tenant", tenantId: "shop-a" });
  });
});
