/**
 * The SMS settings (docs/configuration.md "SMS"), spread into the one settings schema of ../settings.ts.
 * Without SMS_PROVIDER, texts are logged and kept in the dev outbox, unless the dev start runs the
 * SMS simulator in-process.
 */
import { AFRICASTALKING_LIVE_URL } from "@mteja/sms";
import { z } from "zod";

export const smsSettingsShape = {
  SMS_PROVIDER: z.enum(["africastalking"], { error: "SMS_PROVIDER must be africastalking (or unset: texts are logged)" }).optional(),
  AT_USERNAME: z.string().min(1).max(100).optional(),
  AT_API_KEY: z.string().min(1).max(500).optional(),
  /** A registered transactional sender ID (alphanumeric, up to 11) or short code. */
  AT_SENDER_ID: z.string().regex(/^[A-Za-z0-9 ]{1,11}$/, "AT_SENDER_ID must be 1-11 letters, digits or spaces (a registered sender ID or short code)").optional(),
  AT_BASE_URL: z.url({ protocol: /^https?$/, error: "AT_BASE_URL must be an http(s) URL" }).default(AFRICASTALKING_LIVE_URL),
  SMS_CALLBACK_SECRET: z
    .string()
    .regex(/^[A-Za-z0-9_~.-]{32,256}$/, "SMS_CALLBACK_SECRET must be 32-256 URL-safe characters (e.g. `openssl rand -hex 32`)")
    .optional(),
  /** 0: any free port (the service knows the URL; several dev starts and test runs never collide). */
  SMS_SIM_PORT: z.coerce.number({ error: "SMS_SIM_PORT must be a number" }).int().min(0).max(65535).default(0),
  PHONE_CODE_TTL_SECONDS: z.coerce.number({ error: "PHONE_CODE_TTL_SECONDS must be a number" }).int().min(1).max(3600).default(600),
};

export function checkSmsSettings(s: { SMS_PROVIDER?: string | undefined; AT_USERNAME?: string | undefined; AT_API_KEY?: string | undefined }, ctx: z.RefinementCtx): void {
  if (s.SMS_PROVIDER !== "africastalking") return;
  for (const name of ["AT_USERNAME", "AT_API_KEY"] as const) {
    if (!s[name]) ctx.addIssue({ code: "custom", path: [name], message: `${name} is required with SMS_PROVIDER=africastalking` });
  }
}
