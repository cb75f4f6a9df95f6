/**
 * The MOMO_* settings (docs/mpesa.md "Settings"), spread into the one
 * settings schema of ../settings.ts. Without MOMO_BASE_URL, M-Pesa is off (the momo operations answer
 * PAYMENT_PROVIDER_UNAVAILABLE) unless the dev start runs the simulator in-process.
 */
import { createCallbackTokens, tenantCallbackUrl } from "@mteja/domain";
import { z } from "zod";

const optionalUrl = (name: string) => z.url({ protocol: /^https?$/, error: `${name} must be an http(s) URL` }).optional();

/** Words Daraja refuses in callback URLs, any case (docs/daraja-wire-format.md#callback-urls). */
export const BLOCKED_CALLBACK_WORDS = ["m-pesa", "mpesa", "safaricom", "exe", "exec", "cmd", "sql", "query"] as const;

export function blockedWordIn(url: string): string | undefined {
  const lower = url.toLowerCase();
  return BLOCKED_CALLBACK_WORDS.find((word) => lower.includes(word));
}

export const momoSettingsShape = {
  MTEJA_DEV_START: z.string().optional().transform((v) => v === "1" || v === "true"),
  /** auto: run the simulator in-process on the dev start (MTEJA_DEV_START=1) when MOMO_BASE_URL is unset. */
  MOMO_SIMULATOR: z.enum(["auto", "on", "off"], { error: "MOMO_SIMULATOR must be auto, on or off" }).default("auto"),
  SIM_PORT: z.coerce.number({ error: "SIM_PORT must be a number" }).int().min(0).max(65535).default(4010),
  MOMO_BASE_URL: optionalUrl("MOMO_BASE_URL"),
  MOMO_CONSUMER_KEY: z.string().min(1).optional(),
  MOMO_CONSUMER_SECRET: z.string().min(1).optional(),
  MOMO_SHORTCODE: z.string().regex(/^\d{5,7}$/, "MOMO_SHORTCODE must be 5-7 digits").optional(),
  MOMO_PASSKEY: z.string().min(1).optional(),
  MOMO_TRANSACTION_TYPE: z
    .enum(["CustomerPayBillOnline", "CustomerBuyGoodsOnline"], { error: "MOMO_TRANSACTION_TYPE must be CustomerPayBillOnline or CustomerBuyGoodsOnline" })
    .default("CustomerPayBillOnline"),
  MOMO_TILL_NUMBER: z.string().regex(/^\d{5,7}$/, "MOMO_TILL_NUMBER must be 5-7 digits").optional(),
  MOMO_CALLBACK_URL: optionalUrl("MOMO_CALLBACK_URL"),
  MOMO_B2C_SHORTCODE: z.string().regex(/^\d{5,7}$/, "MOMO_B2C_SHORTCODE must be 5-7 digits").optional(),
  MOMO_INITIATOR_NAME: z.string().min(1).optional(),
  MOMO_SECURITY_CREDENTIAL: z.string().regex(/^[A-Za-z0-9+/]+={0,2}$/, "MOMO_SECURITY_CREDENTIAL must be base64").optional(),
  MOMO_INITIATOR_PASSWORD: z.string().min(1).optional(),
  MOMO_CERTIFICATE_PATH: z.string().min(1).optional(),
  MOMO_B2C_RESULT_URL: optionalUrl("MOMO_B2C_RESULT_URL"),
  MOMO_B2C_TIMEOUT_URL: optionalUrl("MOMO_B2C_TIMEOUT_URL"),
  /** Where Transaction Status results go; default: MOMO_B2C_RESULT_URL with /b2c/result → /b2c/status. */
  MOMO_B2C_STATUS_URL: optionalUrl("MOMO_B2C_STATUS_URL"),
  /** Reversal ResultURL / QueueTimeOutURL; default: the public callback address + /reversal/result, /reversal/timeout (reversalUrls). */
  MOMO_REVERSAL_RESULT_URL: optionalUrl("MOMO_REVERSAL_RESULT_URL"),
  MOMO_REVERSAL_TIMEOUT_URL: optionalUrl("MOMO_REVERSAL_TIMEOUT_URL"),
  MOMO_CALLBACK_SECRET: z
    .string()
    .regex(/^[A-Za-z0-9_~.-]{32,256}$/, "MOMO_CALLBACK_SECRET must be 32-256 URL-safe characters (e.g. `openssl rand -hex 32`)")
    .optional(),
  MOMO_CALLBACK_ALLOWED_IPS: z
    .string()
    .default("")
    .transform((v) => v.split(",").map((s) => s.trim()).filter(Boolean))
    .pipe(z.array(z.union([z.ipv4(), z.ipv6()], { error: "MOMO_CALLBACK_ALLOWED_IPS must be comma-separated IP addresses" }))),
  MOMO_TIMEOUT_MS: z.coerce.number({ error: "MOMO_TIMEOUT_MS must be a number" }).int().min(100).max(120_000).default(10_000),
  MOMO_RECONCILE_AFTER_SECONDS: z.coerce.number({ error: "MOMO_RECONCILE_AFTER_SECONDS must be a number" }).int().min(0).max(86_400).default(120),
  MOMO_UNKNOWN_PROMPT_WINDOW_SECONDS: z.coerce
    .number({ error: "MOMO_UNKNOWN_PROMPT_WINDOW_SECONDS must be a number" })
    .int()
    .min(1)
    .max(86_400)
    .default(300),
  MOMO_RECONCILE_INTERVAL_MS: z.coerce.number({ error: "MOMO_RECONCILE_INTERVAL_MS must be a number" }).int().min(0).max(3_600_000).default(5_000),
  MOMO_RECONCILE_PACE_MS: z.coerce.number({ error: "MOMO_RECONCILE_PACE_MS must be a number" }).int().min(0).max(60_000).default(200),
  /**
   * How long a reconciliation run keeps the rows it claimed from other instances, renewed every third of
   * it while it works: a crashed instance's rows are queried again this long after the crash, plus at most
   * one MOMO_RECONCILE_INTERVAL_MS (docs/deployment.md#leases-and-crashed-instances).
   */
  MOMO_RECONCILE_LEASE_SECONDS: z.coerce
    .number({ error: "MOMO_RECONCILE_LEASE_SECONDS must be a number" })
    .int()
    .min(2)
    .max(3600)
    .default(10),
  /** C2B (docs/mpesa.md#c2b); default: PUBLIC_URL (else MOMO_CALLBACK_URL's base) + /api/momo/callback/c2b/validation. */
  MOMO_C2B_VALIDATION_URL: optionalUrl("MOMO_C2B_VALIDATION_URL"),
  /** Default: PUBLIC_URL (else MOMO_CALLBACK_URL's base) + /api/momo/callback/c2b/confirmation. */
  MOMO_C2B_CONFIRMATION_URL: optionalUrl("MOMO_C2B_CONFIRMATION_URL"),
};

export type MomoSettingsValues = z.output<z.ZodObject<typeof momoSettingsShape>>;
type MomoSettingsInput = MomoSettingsValues & { NODE_ENV: string; PUBLIC_URL?: string | undefined };

/** A callback URL as Daraja is given it: with a tenant's token and name (docs/mpesa.md#callback-tokens), here the default tenant's. */
function asSentToDaraja(url: string, secret: string): string {
  return tenantCallbackUrl(createCallbackTokens(secret), url, "default")!;
}

/** MOMO_B2C_STATUS_URL, or the result URL with its /b2c/result path turned into /b2c/status. */
export function b2cStatusUrl(settings: { MOMO_B2C_STATUS_URL?: string | undefined; MOMO_B2C_RESULT_URL?: string | undefined }): string | undefined {
  if (settings.MOMO_B2C_STATUS_URL) return settings.MOMO_B2C_STATUS_URL;
  if (!settings.MOMO_B2C_RESULT_URL) return undefined;
  const url = new URL(settings.MOMO_B2C_RESULT_URL);
  if (!/\/b2c\/result\/?$/.test(url.pathname)) return undefined;
  url.pathname = url.pathname.replace(/\/b2c\/result\/?$/, "/b2c/status");
  return url.toString();
}

type ReversalUrlSettings = {
  PUBLIC_URL?: string | undefined;
  MOMO_CALLBACK_URL?: string | undefined;
  MOMO_REVERSAL_RESULT_URL?: string | undefined;
  MOMO_REVERSAL_TIMEOUT_URL?: string | undefined;
};

/** Where Daraja's callbacks arrive: PUBLIC_URL's /api/momo/callback, else MOMO_CALLBACK_URL without its /stkpush. */
function publicCallbackBase(settings: ReversalUrlSettings): string | undefined {
  // An unparsable URL is reported by its own check (zod runs refinements even when a field is invalid).
  if (settings.PUBLIC_URL && URL.canParse(settings.PUBLIC_URL)) return `${settings.PUBLIC_URL.replace(/\/+$/, "")}/api/momo/callback`;
  if (!settings.MOMO_CALLBACK_URL || !URL.canParse(settings.MOMO_CALLBACK_URL)) return undefined;
  const url = new URL(settings.MOMO_CALLBACK_URL);
  if (!/\/stkpush\/?$/.test(url.pathname)) return undefined;
  url.search = "";
  url.pathname = url.pathname.replace(/\/stkpush\/?$/, "");
  return url.toString().replace(/\/$/, "");
}

/**
 * The reversal callback addresses (docs/mpesa.md#reversals): MOMO_REVERSAL_RESULT_URL and
 * MOMO_REVERSAL_TIMEOUT_URL, each derived from the public callback address when unset; a reversal's
 * Transaction Status results go to the result URL with /reversal/result → /reversal/status.
 */
export function reversalUrls(settings: ReversalUrlSettings): { resultUrl: string; timeoutUrl: string; statusUrl: string } | undefined {
  const base = publicCallbackBase(settings);
  const resultUrl = settings.MOMO_REVERSAL_RESULT_URL ?? (base && `${base}/reversal/result`);
  const timeoutUrl = settings.MOMO_REVERSAL_TIMEOUT_URL ?? (base && `${base}/reversal/timeout`);
  if (!resultUrl || !timeoutUrl) return undefined;
  const result = new URL(resultUrl);
  let statusUrl: string | undefined;
  if (/\/reversal\/result\/?$/.test(result.pathname)) {
    result.pathname = result.pathname.replace(/\/reversal\/result\/?$/, "/reversal/status");
    statusUrl = result.toString();
  } else if (base) {
    statusUrl = `${base}/reversal/status`;
  }
  return statusUrl ? { resultUrl, timeoutUrl, statusUrl } : undefined;
}

/**
 * MOMO_C2B_VALIDATION_URL and MOMO_C2B_CONFIRMATION_URL, each defaulting to the service's public URL
 * (PUBLIC_URL, else MOMO_CALLBACK_URL with its /stkpush turned into /c2b/…) like the B2C status URL.
 */
export function c2bCallbackUrls(settings: ReversalUrlSettings & {
  MOMO_C2B_VALIDATION_URL?: string | undefined;
  MOMO_C2B_CONFIRMATION_URL?: string | undefined;
}): { validationUrl: string; confirmationUrl: string } | undefined {
  const base = publicCallbackBase(settings);
  const validationUrl = settings.MOMO_C2B_VALIDATION_URL ?? (base && `${base}/c2b/validation`);
  const confirmationUrl = settings.MOMO_C2B_CONFIRMATION_URL ?? (base && `${base}/c2b/confirmation`);
  return validationUrl && confirmationUrl ? { validationUrl, confirmationUrl } : undefined;
}

/** Cross-field rules of the MOMO_* settings. */
export function checkMomoSettings(s: MomoSettingsInput, ctx: z.RefinementCtx): void {
  const issue = (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
  if (s.MOMO_SIMULATOR === "on" && s.NODE_ENV === "production") issue("MOMO_SIMULATOR", "MOMO_SIMULATOR=on is not allowed in production");
  if (!s.MOMO_BASE_URL) return;

  for (const name of ["MOMO_CONSUMER_KEY", "MOMO_CONSUMER_SECRET", "MOMO_SHORTCODE", "MOMO_PASSKEY", "MOMO_CALLBACK_URL", "MOMO_CALLBACK_SECRET"] as const) {
    if (!s[name]) issue(name, `${name} is required when MOMO_BASE_URL is set`);
  }
  if (s.MOMO_TRANSACTION_TYPE === "CustomerBuyGoodsOnline" && !s.MOMO_TILL_NUMBER) {
    issue("MOMO_TILL_NUMBER", "MOMO_TILL_NUMBER is required with MOMO_TRANSACTION_TYPE=CustomerBuyGoodsOnline");
  }
  if (s.MOMO_B2C_SHORTCODE) {
    for (const name of ["MOMO_INITIATOR_NAME", "MOMO_B2C_RESULT_URL", "MOMO_B2C_TIMEOUT_URL"] as const) {
      if (!s[name]) issue(name, `${name} is required when MOMO_B2C_SHORTCODE is set`);
    }
    if (!s.MOMO_SECURITY_CREDENTIAL && !(s.MOMO_INITIATOR_PASSWORD && s.MOMO_CERTIFICATE_PATH)) {
      issue("MOMO_SECURITY_CREDENTIAL", "B2C needs MOMO_SECURITY_CREDENTIAL, or MOMO_INITIATOR_PASSWORD with MOMO_CERTIFICATE_PATH");
    }
    if (s.MOMO_B2C_RESULT_URL && !b2cStatusUrl(s)) {
      issue("MOMO_B2C_STATUS_URL", "MOMO_B2C_STATUS_URL is required when MOMO_B2C_RESULT_URL does not end in /b2c/result");
    }
  }

  const secret = s.MOMO_CALLBACK_SECRET;
  const reversal = reversalUrls(s);
  if ((s.MOMO_REVERSAL_RESULT_URL || s.MOMO_REVERSAL_TIMEOUT_URL) && !reversal) {
    issue("MOMO_REVERSAL_RESULT_URL", "MOMO_REVERSAL_RESULT_URL and MOMO_REVERSAL_TIMEOUT_URL need each other, or PUBLIC_URL to derive the missing one");
  }
  const c2b = c2bCallbackUrls(s);
  const urls = {
    MOMO_CALLBACK_URL: s.MOMO_CALLBACK_URL,
    MOMO_B2C_RESULT_URL: s.MOMO_B2C_RESULT_URL,
    MOMO_B2C_TIMEOUT_URL: s.MOMO_B2C_TIMEOUT_URL,
    MOMO_B2C_STATUS_URL: b2cStatusUrl(s),
    MOMO_REVERSAL_RESULT_URL: reversal?.resultUrl,
    MOMO_REVERSAL_TIMEOUT_URL: reversal?.timeoutUrl,
    MOMO_C2B_VALIDATION_URL: c2b?.validationUrl,
    MOMO_C2B_CONFIRMATION_URL: c2b?.confirmationUrl,
  };
  for (const [name, url] of Object.entries(urls)) {
    // An unparsable URL has its own issue already (zod still runs this refinement).
    if (!url || !secret || !URL.canParse(url)) continue;
    const token = new URL(url).searchParams.get("token");
    if (token !== null && token !== secret) issue(name, `${name} carries a token= that is not MOMO_CALLBACK_SECRET`);
    const word = blockedWordIn(asSentToDaraja(url, secret));
    if (word) issue(name, `${name} (with its token) contains "${word}", which Daraja refuses in callback URLs`);
    if (s.NODE_ENV === "production" && !url.startsWith("https://")) issue(name, `${name} must use https in production`);
  }
}
