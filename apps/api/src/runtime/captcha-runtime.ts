/**
 * The CAPTCHA side of the composition root (docs/sign-in.md#captcha): the verifier of CAPTCHA_PROVIDER,
 * or on the dev start (CAPTCHA_PROVIDER unset) the local stand-in's, so the demo's CAPTCHA works with no
 * internet; none otherwise. At start, a warning when shops ask for a CAPTCHA that no provider checks.
 */
import { tenants, type Database } from "@mteja/db";
import type { CaptchaVerifier, Logger } from "@mteja/domain";
import type { Settings } from "../settings.js";
import { captchaAccountOf, createCaptchaVerifier } from "./captcha.js";
import { startDevCaptcha, type DevCaptcha } from "./dev-simulators.js";

export interface CaptchaRuntime {
  verifier: CaptchaVerifier;
  /** The dev start's stand-in, when it runs: the demo shop hands its tokens to the demo. */
  dev: DevCaptcha | undefined;
  close(): Promise<void>;
}

function standInWanted(settings: Settings): boolean {
  return settings.MTEJA_DEV_START && settings.CAPTCHA_PROVIDER === undefined && settings.NODE_ENV !== "production";
}

export async function createCaptchaRuntime(settings: Settings, logger: Logger): Promise<CaptchaRuntime> {
  const dev = standInWanted(settings) ? await startDevCaptcha(logger) : undefined;
  const account = dev ? { provider: "turnstile" as const, secret: dev.secret, verifyUrl: dev.verifyUrl } : captchaAccountOf(settings);
  return { verifier: createCaptchaVerifier(account, logger), dev, close: async () => dev?.close() };
}

/** With no provider, a shop's "always" acts as "never": said once at start, naming the shops. */
export async function warnOfCaptchaWithoutProvider(db: Database, providerEnabled: boolean, logger: Logger): Promise<void> {
  if (providerEnabled) return;
  const shops = (await tenants.activeTenants(db.unscoped("start-up"))).filter((tenant) => asksForCaptcha(tenant.settings)).map((tenant) => tenant.id);
  if (shops.length === 0) return;
  logger.warn({ shops }, `CAPTCHA_PROVIDER is off: ${shops.length} shop(s) ask for a CAPTCHA (settings.captcha "always") that nothing checks; it acts as "never"`);
}

function asksForCaptcha(settings: unknown): boolean {
  const captcha = (settings as { captcha?: unknown } | null)?.captcha;
  return typeof captcha === "object" && captcha !== null && Object.values(captcha).includes("always");
}
