/**
 * The MOMO_* settings (docs/mpesa.md "Settings"), spread into the one
 * settings schema of ../settings.ts. Without MOMO_BASE_URL, M-Pesa is off (the momo operations answer
 * PAYMENT_PROVIDER_UNAVAILABLE) unless the dev start runs the simulator in-process.
 */
import {
  callbackRoutes,
  callbackUrlSettings,
  createCallbackTokens,
  darajaFlows,
  tenantCallbackUrl,
  type CallbackKind,
  type CallbackUrlSetting,
  type RegisteredCallback,
} from "@mteja/domain";
import { z } from "zod";

const optionalUrl = (name: string) => z.url({ protocol: /^https?$/, error: `${name} must be an http(s) URL` }).optional();

/** Words Daraja refuses in callback URLs, any case (docs/daraja-wire-format.md#callback-urls). */
export const BLOCKED_CALLBACK_WORDS = ["m-pesa", "mpesa", "safaricom", "exe", "exec", "cmd", "sql", "query"] as const;

export function blockedWordIn(url: string): string | undefined {
  const lower = url.toLowerCase();
  return BLOCKED_CALLBACK_WORDS.find((word) => lower.includes(word));
}

/**
 * One setting per callback URL a flow declares (packages/domain/src/payments/flows.ts), e.g.
 * MOMO_CALLBACK_URL, MOMO_B2C_RESULT_URL, MOMO_REVERSAL_RESULT_URL; when unset, derived as the flow
 * says (callbackUrlsOf, below; docs/configuration.md lists each).
 */
const callbackUrlSettingsShape = Object.fromEntries(callbackUrlSettings.map((name) => [name, optionalUrl(name)])) as {
  [Name in CallbackUrlSetting]: ReturnType<typeof optionalUrl>;
};

export const momoSettingsShape = {
  ...callbackUrlSettingsShape,
  MTEJA_DEV_START: z.string().optional().transform((v) => v === "1" || v === "true"),
  /** auto: run the simulator in-process on the dev start (MTEJA_DEV_START=1) when MOMO_BASE_URL is unset. */
  MOMO_SIMULATOR: z.enum(["auto", "on", "off"], { error: "MOMO_SIMULATOR must be auto, on or off" }).default("auto"),
  /** The in-process simulator's port on the dev start; 0: any free port (logged). */
  SIM_PORT: z.coerce.number({ error: "SIM_PORT must be a number" }).int().min(0).max(65535).default(0),
  MOMO_BASE_URL: optionalUrl("MOMO_BASE_URL"),
  MOMO_CONSUMER_KEY: z.string().min(1).optional(),
  MOMO_CONSUMER_SECRET: z.string().min(1).optional(),
  MOMO_SHORTCODE: z.string().regex(/^\d{5,7}$/, "MOMO_SHORTCODE must be 5-7 digits").optional(),
  MOMO_PASSKEY: z.string().min(1).optional(),
  MOMO_TRANSACTION_TYPE: z
    .enum(["CustomerPayBillOnline", "CustomerBuyGoodsOnline"], { error: "MOMO_TRANSACTION_TYPE must be CustomerPayBillOnline or CustomerBuyGoodsOnline" })
    .default("CustomerPayBillOnline"),
  MOMO_TILL_NUMBER: z.string().regex(/^\d{5,7}$/, "MOMO_TILL_NUMBER must be 5-7 digits").optional(),
  MOMO_B2C_SHORTCODE: z.string().regex(/^\d{5,7}$/, "MOMO_B2C_SHORTCODE must be 5-7 digits").optional(),
  MOMO_INITIATOR_NAME: z.string().min(1).optional(),
  MOMO_SECURITY_CREDENTIAL: z.string().regex(/^[A-Za-z0-9+/]+={0,2}$/, "MOMO_SECURITY_CREDENTIAL must be base64").optional(),
  MOMO_INITIATOR_PASSWORD: z.string().min(1).optional(),
  MOMO_CERTIFICATE_PATH: z.string().min(1).optional(),
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
  /**
   * How often the reconciler pulls each short code registered for Pull Transactions (docs/mpesa.md#recovery);
   * 0: never (the on-demand pull still works). Tests shorten it.
   */
  MOMO_PULL_INTERVAL_SECONDS: z.coerce
    .number({ error: "MOMO_PULL_INTERVAL_SECONDS must be a number" })
    .int()
    .min(0)
    .max(86_400)
    .default(900),
  MOMO_RECONCILE_LEASE_SECONDS: z.coerce
    .number({ error: "MOMO_RECONCILE_LEASE_SECONDS must be a number" })
    .int()
    .min(2)
    .max(3600)
    .default(10),
};

export type MomoSettingsValues = z.output<z.ZodObject<typeof momoSettingsShape>>;
type MomoSettingsInput = MomoSettingsValues & { NODE_ENV: string; PUBLIC_URL?: string | undefined };

/** A callback URL as Daraja is given it: with a tenant's token and name (docs/mpesa.md#callback-tokens), here the default tenant's. */
function asSentToDaraja(url: string, secret: string): string {
  return tenantCallbackUrl(createCallbackTokens(secret), url, "default")!;
}

type CallbackUrlSettings = { PUBLIC_URL?: string | undefined } & { [Name in CallbackUrlSetting]?: string | undefined };

/** Callback URLs by kind; a kind nothing gives is absent. */
export type CallbackUrls = Partial<Record<CallbackKind, string>>;

/** Where Daraja's callbacks arrive: PUBLIC_URL's /api/momo/callback, else MOMO_CALLBACK_URL without its /stkpush. */
function publicCallbackBase(settings: CallbackUrlSettings): string | undefined {
  // An unparsable URL is reported by its own check (zod runs refinements even when a field is invalid).
  if (settings.PUBLIC_URL && URL.canParse(settings.PUBLIC_URL)) return `${settings.PUBLIC_URL.replace(/\/+$/, "")}/api/momo/callback`;
  if (!settings.MOMO_CALLBACK_URL || !URL.canParse(settings.MOMO_CALLBACK_URL)) return undefined;
  const url = new URL(settings.MOMO_CALLBACK_URL);
  if (!/\/stkpush\/?$/.test(url.pathname)) return undefined;
  url.search = "";
  url.pathname = url.pathname.replace(/\/stkpush\/?$/, "");
  return url.toString().replace(/\/$/, "");
}

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** `url` (another callback's) with that one's path at its end turned into `path`; undefined when it does not end so. */
function besidePath(url: string, otherPath: string, path: string): string | undefined {
  if (!URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  const end = new RegExp(`/${escaped(otherPath)}/?$`);
  if (!end.test(parsed.pathname)) return undefined;
  parsed.pathname = parsed.pathname.replace(end, `/${path}`);
  return parsed.toString();
}

/**
 * Each callback's URL as the settings give it or its flow's rule derives it (CallbackUrlRule of the
 * domain's payments/shared/flow.ts: its setting; else beside another callback's URL, as MOMO_B2C_STATUS_URL
 * beside MOMO_B2C_RESULT_URL; else, where the flow allows, the public callback address and its path).
 * A kind is absent when nothing gives it.
 */
export function callbackUrlsOf(settings: CallbackUrlSettings): CallbackUrls {
  const base = publicCallbackBase(settings);
  const urls: CallbackUrls = {};
  const resolve = (route: RegisteredCallback): string | undefined => {
    if (route.kind in urls) return urls[route.kind];
    const { setting, besides, publicDefault } = route.url;
    const other = besides === undefined ? undefined : callbackRoutes.find((candidate) => candidate.kind === besides);
    const otherUrl = other && resolve(other);
    const url =
      (setting && settings[setting as CallbackUrlSetting]) ||
      (other && otherUrl ? besidePath(otherUrl, other.path, route.path) : undefined) ||
      (publicDefault && base ? `${base}/${route.path}` : undefined);
    if (url) urls[route.kind] = url;
    return url;
  };
  for (const route of callbackRoutes) resolve(route);
  return urls;
}

/** The callbacks of the flows whose every callback has a URL: a flow with one missing is not configured. */
export function configuredCallbackUrls(settings: CallbackUrlSettings): CallbackUrls {
  const urls = callbackUrlsOf(settings);
  const configured: CallbackUrls = {};
  for (const flow of darajaFlows) {
    const kinds = Object.keys(flow.callbacks) as CallbackKind[];
    if (kinds.every((kind) => urls[kind])) for (const kind of kinds) configured[kind] = urls[kind];
  }
  return configured;
}

/**
 * A flow whose callback URLs all derive from the public callback address (reversals, C2B, …) given
 * some of them by their settings: each needs the others, or an address to derive them from.
 */
function flowsMissingUrls(settings: CallbackUrlSettings, urls: CallbackUrls): CallbackUrlSetting[][] {
  return darajaFlows.flatMap((flow) => {
    const routes = callbackRoutes.filter((route) => route.flow === flow.name);
    if (!routes.every((route) => route.url.publicDefault)) return [];
    const names = routes.flatMap((route) => (route.url.setting ? [route.url.setting as CallbackUrlSetting] : []));
    const incomplete = names.some((name) => settings[name]) && routes.some((route) => !urls[route.kind]);
    return incomplete ? [names] : [];
  });
}

/** Cross-field rules of the MOMO_* settings. */
export function checkMomoSettings(s: MomoSettingsInput, ctx: z.RefinementCtx): void {
  const issue = (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
  if (s.MOMO_SIMULATOR === "on" && s.NODE_ENV === "production") issue("MOMO_SIMULATOR", "MOMO_SIMULATOR=on is not allowed in production");
  if (!s.MOMO_BASE_URL) return;
  const urls = callbackUrlsOf(s);

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
    if (s.MOMO_B2C_RESULT_URL && !urls.b2c_status) {
      issue("MOMO_B2C_STATUS_URL", "MOMO_B2C_STATUS_URL is required when MOMO_B2C_RESULT_URL does not end in /b2c/result");
    }
  }

  const secret = s.MOMO_CALLBACK_SECRET;
  for (const names of flowsMissingUrls(s, urls)) {
    issue(names[0]!, `${names.join(" and ")} need each other, or PUBLIC_URL to derive the missing one`);
  }
  for (const route of callbackRoutes) {
    const name = route.url.setting;
    const url = urls[route.kind];
    // Without a setting it is derived from another URL, checked there; an unparsable URL has its own issue
    // already (zod still runs this refinement).
    if (!name || !url || !secret || !URL.canParse(url)) continue;
    const token = new URL(url).searchParams.get("token");
    if (token !== null && token !== secret) issue(name, `${name} carries a token= that is not MOMO_CALLBACK_SECRET`);
    const word = blockedWordIn(asSentToDaraja(url, secret));
    if (word) issue(name, `${name} (with its token) contains "${word}", which Daraja refuses in callback URLs`);
    if (s.NODE_ENV === "production" && !url.startsWith("https://")) issue(name, `${name} must use https in production`);
  }
}
