/** The MOMO_* settings: a bad value stops the start with a message naming the setting. */
import { describe, expect, it } from "vitest";
import { configuredCallbackUrls } from "../src/runtime/payments-settings.js";
import { readSettings, SettingsError } from "../src/settings.js";

const secret = "a".repeat(64);
const complete = {
  MOMO_BASE_URL: "https://sandbox.safaricom.co.ke",
  MOMO_CONSUMER_KEY: "key",
  MOMO_CONSUMER_SECRET: "secret",
  MOMO_SHORTCODE: "174379",
  MOMO_PASSKEY: "passkey",
  MOMO_CALLBACK_URL: "https://shop.example.com/api/momo/callback/stkpush",
  MOMO_CALLBACK_SECRET: secret,
};

function failure(env: Record<string, string>): string {
  try {
    readSettings(env);
  } catch (error) {
    if (error instanceof SettingsError) return error.message;
    throw error;
  }
  throw new Error("expected a SettingsError");
}

/** The C2B flow's two callback URLs, when it is configured. */
function c2bCallbackUrls(settings: Parameters<typeof configuredCallbackUrls>[0]) {
  const urls = configuredCallbackUrls(settings);
  if (!urls.c2b_validation) return undefined;
  return { validationUrl: urls.c2b_validation, confirmationUrl: urls.c2b_confirmation };
}

describe("MOMO_* settings", () => {
  it("accepts a complete configuration and defaults the rest", () => {
    const settings = readSettings(complete);
    expect(settings).toMatchObject({ MOMO_TRANSACTION_TYPE: "CustomerPayBillOnline", MOMO_RECONCILE_AFTER_SECONDS: 120, MOMO_TIMEOUT_MS: 10_000, MOMO_SIMULATOR: "auto" });
    expect(readSettings({}).MOMO_BASE_URL).toBeUndefined();
  });

  it("reads MOMO_UNKNOWN_PROMPT_WINDOW_SECONDS (default 300, 1-86400)", () => {
    expect(readSettings(complete).MOMO_UNKNOWN_PROMPT_WINDOW_SECONDS).toBe(300);
    expect(readSettings({ ...complete, MOMO_UNKNOWN_PROMPT_WINDOW_SECONDS: "5" }).MOMO_UNKNOWN_PROMPT_WINDOW_SECONDS).toBe(5);
    expect(failure({ ...complete, MOMO_UNKNOWN_PROMPT_WINDOW_SECONDS: "0" })).toContain("MOMO_UNKNOWN_PROMPT_WINDOW_SECONDS");
  });

  it("names each missing setting when MOMO_BASE_URL is set", () => {
    const message = failure({ MOMO_BASE_URL: complete.MOMO_BASE_URL });
    for (const name of ["MOMO_CONSUMER_KEY", "MOMO_CONSUMER_SECRET", "MOMO_SHORTCODE", "MOMO_PASSKEY", "MOMO_CALLBACK_URL", "MOMO_CALLBACK_SECRET"]) {
      expect(message).toContain(name);
    }
  });

  it("refuses callback URLs Daraja would refuse: blocked words and http in production (the secret is never in a URL: each shop's token is hex)", () => {
    expect(failure({ ...complete, MOMO_CALLBACK_URL: "https://shop.example.com/mpesa/callback" })).toContain('contains "mpesa"');
    expect(readSettings({ ...complete, MOMO_CALLBACK_SECRET: `${"b".repeat(40)}SQL${"c".repeat(10)}` }).MOMO_CALLBACK_SECRET).toContain("SQL");
    expect(failure({ ...complete, NODE_ENV: "production", DATA_ENCRYPTION_KEY: "0".repeat(64), MOMO_CALLBACK_URL: "http://shop.example.com/api/momo/callback/stkpush" })).toContain("https");
    expect(failure({ ...complete, MOMO_CALLBACK_URL: `${complete.MOMO_CALLBACK_URL}?token=other` })).toContain("not MOMO_CALLBACK_SECRET");
    expect(failure({ ...complete, MOMO_CALLBACK_SECRET: "short" })).toContain("MOMO_CALLBACK_SECRET");
  });

  it("needs the whole B2C group once MOMO_B2C_SHORTCODE is set", () => {
    const message = failure({ ...complete, MOMO_B2C_SHORTCODE: "600992" });
    for (const name of ["MOMO_INITIATOR_NAME", "MOMO_B2C_RESULT_URL", "MOMO_B2C_TIMEOUT_URL", "MOMO_SECURITY_CREDENTIAL"]) expect(message).toContain(name);
    const b2c = {
      ...complete,
      MOMO_B2C_SHORTCODE: "600992",
      MOMO_INITIATOR_NAME: "testapi",
      MOMO_SECURITY_CREDENTIAL: "c2VjcmV0",
      MOMO_B2C_RESULT_URL: "https://shop.example.com/hooks/payout",
      MOMO_B2C_TIMEOUT_URL: "https://shop.example.com/api/momo/callback/b2c/timeout",
    };
    expect(failure(b2c)).toContain("MOMO_B2C_STATUS_URL");
    expect(readSettings({ ...b2c, MOMO_B2C_RESULT_URL: "https://shop.example.com/api/momo/callback/b2c/result" }).MOMO_B2C_SHORTCODE).toBe("600992");
  });

  it("derives the C2B URLs from PUBLIC_URL, else from MOMO_CALLBACK_URL, unless set; and checks them like the others", () => {
    expect(c2bCallbackUrls(readSettings(complete))).toEqual({
      validationUrl: "https://shop.example.com/api/momo/callback/c2b/validation",
      confirmationUrl: "https://shop.example.com/api/momo/callback/c2b/confirmation",
    });
    expect(c2bCallbackUrls(readSettings({ ...complete, PUBLIC_URL: "https://api.shop.example" }))).toEqual({
      validationUrl: "https://api.shop.example/api/momo/callback/c2b/validation",
      confirmationUrl: "https://api.shop.example/api/momo/callback/c2b/confirmation",
    });
    const own = readSettings({ ...complete, MOMO_C2B_VALIDATION_URL: "https://hooks.shop.example/v", MOMO_C2B_CONFIRMATION_URL: "https://hooks.shop.example/c" });
    expect(c2bCallbackUrls(own)).toEqual({ validationUrl: "https://hooks.shop.example/v", confirmationUrl: "https://hooks.shop.example/c" });
    expect(failure({ ...complete, MOMO_C2B_VALIDATION_URL: "https://shop.example.com/safaricom/v" })).toContain('MOMO_C2B_VALIDATION_URL (with its token) contains "safaricom"');
    expect(failure({ ...complete, MOMO_C2B_CONFIRMATION_URL: "not a url" })).toContain("MOMO_C2B_CONFIRMATION_URL");
  });

  it("refuses one C2B URL without the other when nothing can derive it, as for reversals", () => {
    const base = { ...complete, MOMO_CALLBACK_URL: "https://shop.example.com/hooks/stk" };
    expect(failure({ ...base, MOMO_C2B_VALIDATION_URL: "https://hooks.shop.example/v" })).toContain(
      "MOMO_C2B_VALIDATION_URL and MOMO_C2B_CONFIRMATION_URL need each other, or PUBLIC_URL to derive the missing one",
    );
    const validation = "https://hooks.shop.example/v";
    const publicUrl = "https://api.shop.example";
    const derived = readSettings({ ...base, MOMO_C2B_VALIDATION_URL: validation, PUBLIC_URL: publicUrl });
    expect(c2bCallbackUrls(derived)).toEqual({
      validationUrl: validation,
      confirmationUrl: "https://api.shop.example/api/momo/callback/c2b/confirmation",
    });
  });

  it("derives the account balance URLs like the reversal ones, unless set; and checks them like the others", () => {
    const balance = (env: Record<string, string>) => {
      const urls = configuredCallbackUrls(readSettings(env));
      return { result: urls.balance_result, timeout: urls.balance_timeout };
    };
    expect(balance(complete)).toEqual({
      result: "https://shop.example.com/api/momo/callback/balance/result",
      timeout: "https://shop.example.com/api/momo/callback/balance/timeout",
    });
    const ownTimeout = { PUBLIC_URL: "https://api.shop.example", MOMO_BALANCE_TIMEOUT_URL: "https://hooks.example/bt" };
    expect(balance({ ...complete, ...ownTimeout })).toEqual({
      result: "https://api.shop.example/api/momo/callback/balance/result",
      timeout: "https://hooks.example/bt",
    });
    const refusedWord = failure({ ...complete, MOMO_BALANCE_RESULT_URL: "https://shop.example.com/sql/balance" });
    expect(refusedWord).toContain('MOMO_BALANCE_RESULT_URL (with its token) contains "sql"');
    const plain = failure({ ...complete, NODE_ENV: "production", MOMO_BALANCE_TIMEOUT_URL: "http://shop.example/bt" });
    expect(plain).toContain("MOMO_BALANCE_TIMEOUT_URL must use https in production");
  });

  it("never runs the simulator in production, and checks the numbers", () => {
    expect(failure({ NODE_ENV: "production", MOMO_SIMULATOR: "on" })).toContain("MOMO_SIMULATOR");
    expect(failure({ MOMO_RECONCILE_AFTER_SECONDS: "-1" })).toContain("MOMO_RECONCILE_AFTER_SECONDS");
    expect(failure({ ...complete, MOMO_TRANSACTION_TYPE: "CustomerBuyGoodsOnline" })).toContain("MOMO_TILL_NUMBER");
  });
});
