/**
 * Settings that are allowed in production but unsafe there: main.ts logs one warning per item at
 * start, so an operator sees them in the first lines of the log. docs/operations.md "Production
 * checklist" explains each one and what to set instead.
 */
import { parseSender } from "@mteja/mailer";
import type { Settings } from "../settings.js";

export interface SettingWarning {
  /** The setting (or settings) to look at. */
  setting: string;
  message: string;
}

type Check = (s: Settings) => string | undefined;

const checks: Array<[setting: string, check: Check]> = [
  ["COOKIE_SECURE", (s) => (s.COOKIE_SECURE ? undefined : "COOKIE_SECURE=false: the refresh cookie is also sent over plain http")],
  ["RATE_LIMITS", (s) => (s.RATE_LIMITS === "off" ? "RATE_LIMITS=off: no abuse limit applies (password guessing, mail floods, STK prompts)" : undefined)],
  [
    "TRUST_PROXY",
    (s) =>
      s.TRUST_PROXY === "true"
        ? "TRUST_PROXY=true takes whatever connects for the proxy (one hop): a client that reaches the service directly writes its own X-Forwarded-For and escapes the per-IP limits; list the proxies' addresses"
        : undefined,
  ],
  ["SMTP_URL", (s) => (s.SMTP_URL ? undefined : "SMTP_URL is unset: mails (verification, password reset, notices) are only logged, never sent")],
  ["SMS_PROVIDER", (s) => (s.SMS_PROVIDER ? undefined : "SMS_PROVIDER is unset: phone sign-in codes are only logged, never texted")],
  [
    "SMS_CALLBACK_SECRET",
    (s) => (s.SMS_PROVIDER && !s.SMS_CALLBACK_SECRET ? "SMS_CALLBACK_SECRET is unset: Africa's Talking's delivery reports are refused, so texts never show as delivered" : undefined),
  ],
  ["DATABASE_URL", (s) => (s.DATABASE_URL ? undefined : "DATABASE_URL is unset: the embedded database serves one process only, on this machine's disk (DATA_DIR)")],
  [
    "REDIS_URL",
    (s) => (s.DATABASE_URL && !s.REDIS_URL ? "REDIS_URL is unset: with more than one instance each counts abuse limits on its own, so a client gets the limits once per instance" : undefined),
  ],
  [
    "DATA_ENCRYPTION_KEY",
    (s) => (s.DATA_ENCRYPTION_KEY ? undefined : "DATA_ENCRYPTION_KEY is unset: the key is generated into DATA_DIR/secrets.json; back that file up, without it two-factor secrets and stored signing keys are lost"),
  ],
  [
    "METRICS_TOKEN",
    (s) =>
      !s.METRICS_TOKEN && s.TRUST_PROXY
        ? "METRICS_TOKEN is unset behind a proxy: /metrics answers any loopback connection without proxy headers, so a proxy on this machine that does not add X-Forwarded-For exposes it"
        : undefined,
  ],
  [
    "CORS_ORIGINS",
    (s) => {
      const plain = s.CORS_ORIGINS.filter((origin) => origin.startsWith("http://"));
      return plain.length ? `CORS_ORIGINS lists plain-http origins (${plain.join(", ")}): pages served without TLS may call the API with the customer's cookie` : undefined;
    },
  ],
  ["APP_URL", (s) => (s.APP_URL.startsWith("http://") ? `APP_URL is ${s.APP_URL}: verification and reset links in mails are not https` : undefined)],
  [
    "MAIL_FROM",
    (s) =>
      s.SMTP_URL && parseSender(s.MAIL_FROM)?.address.endsWith("@mteja.local")
        ? "MAIL_FROM is at mteja.local, the default: mail servers will reject or junk mail from it"
        : undefined,
  ],
  [
    "MOMO_CALLBACK_ALLOWED_IPS",
    (s) =>
      s.MOMO_BASE_URL && s.MOMO_CALLBACK_ALLOWED_IPS.length === 0
        ? "MOMO_CALLBACK_ALLOWED_IPS is empty: M-Pesa callbacks are not checked against Safaricom's addresses (the callback token still is)"
        : undefined,
  ],
  [
    "WEBHOOK_ALLOW_PRIVATE_URLS",
    (s) =>
      s.WEBHOOK_ALLOW_PRIVATE_URLS
        ? "WEBHOOK_ALLOW_PRIVATE_URLS=true: a shop's webhook endpoint may be plain http or reach this service's own network (loopback, private addresses)"
        : undefined,
  ],
  [
    "MOMO_BASE_URL",
    (s) => (s.MOMO_BASE_URL && new URL(s.MOMO_BASE_URL).hostname === "sandbox.safaricom.co.ke" ? "MOMO_BASE_URL is Daraja's sandbox: payments are not real" : undefined),
  ],
];

export function productionWarnings(settings: Settings): SettingWarning[] {
  if (settings.NODE_ENV !== "production") return [];
  return checks.flatMap(([setting, check]) => {
    const message = check(settings);
    return message ? [{ setting, message }] : [];
  });
}
