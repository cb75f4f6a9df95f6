/** MOMO_REVERSAL_RESULT_URL / MOMO_REVERSAL_TIMEOUT_URL: derived from the public callback address when unset (docs/mpesa.md#reversals). */
import { describe, expect, it } from "vitest";
import { configuredCallbackUrls } from "../src/runtime/payments-settings.js";
import { readSettings, SettingsError } from "../src/settings.js";

/** The reversal flow's three callback URLs, when it is configured. */
function reversalUrls(settings: Parameters<typeof configuredCallbackUrls>[0]) {
  const urls = configuredCallbackUrls(settings);
  if (!urls.reversal_result) return undefined;
  return { resultUrl: urls.reversal_result, timeoutUrl: urls.reversal_timeout, statusUrl: urls.reversal_status };
}

const complete = {
  MOMO_BASE_URL: "https://sandbox.safaricom.co.ke",
  MOMO_CONSUMER_KEY: "key",
  MOMO_CONSUMER_SECRET: "secret",
  MOMO_SHORTCODE: "174379",
  MOMO_PASSKEY: "passkey",
  MOMO_CALLBACK_URL: "https://shop.example.com/api/momo/callback/stkpush",
  MOMO_CALLBACK_SECRET: "a".repeat(64),
};

describe("reversal callback addresses", () => {
  it("derive from PUBLIC_URL, else from MOMO_CALLBACK_URL without /stkpush; status results go beside the result URL", () => {
    expect(reversalUrls({ PUBLIC_URL: "https://api.duka.example/", MOMO_CALLBACK_URL: complete.MOMO_CALLBACK_URL })).toEqual({
      resultUrl: "https://api.duka.example/api/momo/callback/reversal/result",
      timeoutUrl: "https://api.duka.example/api/momo/callback/reversal/timeout",
      statusUrl: "https://api.duka.example/api/momo/callback/reversal/status",
    });
    expect(reversalUrls({ MOMO_CALLBACK_URL: `${complete.MOMO_CALLBACK_URL}?token=x` })).toEqual({
      resultUrl: "https://shop.example.com/api/momo/callback/reversal/result",
      timeoutUrl: "https://shop.example.com/api/momo/callback/reversal/timeout",
      statusUrl: "https://shop.example.com/api/momo/callback/reversal/status",
    });
    expect(reversalUrls({})).toBeUndefined();
  });

  it("take the settings when set; a result URL of another shape has its status results at the public address", () => {
    expect(
      reversalUrls({ MOMO_CALLBACK_URL: complete.MOMO_CALLBACK_URL, MOMO_REVERSAL_RESULT_URL: "https://hooks.example/rev/result", MOMO_REVERSAL_TIMEOUT_URL: "https://hooks.example/rev/timeout" }),
    ).toEqual({ resultUrl: "https://hooks.example/rev/result", timeoutUrl: "https://hooks.example/rev/timeout", statusUrl: "https://shop.example.com/api/momo/callback/reversal/status" });
  });

  it("refuses one without the other when nothing can derive it, and a URL with a word Daraja refuses", () => {
    const message = (env: Record<string, string>) => {
      try {
        readSettings(env);
      } catch (error) {
        if (error instanceof SettingsError) return error.message;
        throw error;
      }
      return "";
    };
    expect(message({ ...complete, MOMO_CALLBACK_URL: "https://shop.example.com/hooks/stk", MOMO_REVERSAL_RESULT_URL: "https://shop.example.com/hooks/reversal/result" })).toContain("MOMO_REVERSAL_RESULT_URL");
    expect(message({ ...complete, MOMO_REVERSAL_RESULT_URL: "https://shop.example.com/mpesa/reversal/result" })).toContain("MOMO_REVERSAL_RESULT_URL");
    expect(message(complete)).toBe("");
  });
});
