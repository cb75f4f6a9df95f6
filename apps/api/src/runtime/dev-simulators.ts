/**
 * The dev start's HTTP simulators (`node scripts/run.mjs start`, MTEJA_DEV_START=1): the Daraja
 * simulator on 127.0.0.1:SIM_PORT and the SMS simulator on 127.0.0.1:SMS_SIM_PORT, in this process
 * (each any free port unless set: a busy machine still starts).
 * Each is loaded by a dynamic import when the dev start asks for it, so they are devDependencies of
 * apps/api: the production build neither ships nor loads them (scripts/dependency-rules.mjs).
 */
import { createPrivateKey, randomBytes } from "node:crypto";
import path from "node:path";
import { securityCredentialFromCertificate } from "@mteja/daraja";
import type { Logger } from "@mteja/domain";
import type { Settings } from "../settings.js";
import { listenNaming } from "./port-taken.js";

/** Where the dev start's simulators listen: this machine only. */
export const simulatorHost = "127.0.0.1";

/** The Daraja simulator listening, and the account the service uses with it. */
export interface DevDaraja {
  baseUrl: string;
  consumerKey: string;
  consumerSecret: string;
  shortcode: string;
  passkey: string;
  b2c: { shortcode: string; initiatorName: string; securityCredential: string };
  close(): Promise<void>;
}

/** The Daraja simulator, its RSA key under DATA_DIR (so the B2C credential it checks survives a restart). */
export async function startDevDaraja(settings: Settings, logger: Logger): Promise<DevDaraja> {
  const { buildDarajaSimulator, createSimulatorKeyFiles, simulatorDefaults } = await import("@mteja/daraja-sim");
  const dataDir = path.resolve(settings.DATA_DIR);
  const keys = createSimulatorKeyFiles({
    publicKeyPath: path.join(dataDir, "daraja-sim-public.pem"),
    privateKeyPath: path.join(dataDir, "daraja-sim-private.pem"),
  });
  const sim = buildDarajaSimulator({ privateKey: createPrivateKey(keys.privateKeyPem) });
  const port = settings.SIM_PORT;
  const baseUrl = await listenNaming("SIM_PORT", simulatorHost, port, () => sim.listen({ host: simulatorHost, port }));
  logger.info({ url: baseUrl }, "Daraja simulator started in-process (magic amounts: docs/daraja-simulator.md)");
  return {
    baseUrl,
    consumerKey: simulatorDefaults.consumerKey,
    consumerSecret: simulatorDefaults.consumerSecret,
    shortcode: simulatorDefaults.shortcode,
    passkey: simulatorDefaults.passkey,
    b2c: {
      shortcode: simulatorDefaults.b2cShortcode,
      initiatorName: simulatorDefaults.initiatorName,
      securityCredential: securityCredentialFromCertificate(keys.publicKeyPem, simulatorDefaults.initiatorPassword),
    },
    close: () => sim.close(),
  };
}

/** The Google simulator listening (an OpenID provider), and the OAuth client the demo shop uses with it. */
export interface DevGoogle {
  issuer: string;
  clientId: string;
  clientSecret: string;
  close(): Promise<void>;
}

/** The Google simulator, its client sent back to `callbackUrls` (this service's callback under its local names). */
export async function startDevGoogle(settings: Settings, logger: Logger, callbackUrls: string[]): Promise<DevGoogle> {
  const { buildGoogleSimulator, googleSimulatorDefaults } = await import("@mteja/google-sim");
  const sim = buildGoogleSimulator();
  const port = settings.GOOGLE_SIM_PORT;
  const issuer = await listenNaming("GOOGLE_SIM_PORT", simulatorHost, port, () => sim.listen({ host: simulatorHost, port }));
  const client = { clientId: googleSimulatorDefaults.clientId, clientSecret: googleSimulatorDefaults.clientSecret };
  await sim.addClient({ ...client, redirectUris: callbackUrls });
  logger.info({ url: issuer }, "Google simulator started in-process (OIDC_GOOGLE_ISSUER; any email signs in: docs/sign-in.md)");
  return { issuer, ...client, close: () => sim.close() };
}

/** The SMS simulator listening, and the Africa's Talking account the service uses with it. */
export interface DevSms {
  baseUrl: string;
  username: string;
  apiKey: string;
  senderId: string;
  close(): Promise<void>;
}

/** The SMS simulator, reporting deliveries to this service's callback with `secret`. */
export async function startDevSms(settings: Settings, logger: Logger, secret: string): Promise<DevSms> {
  const { buildSmsSimulator, smsSimulatorDefaults } = await import("@mteja/sms-sim");
  const senderId = settings.AT_SENDER_ID ?? smsSimulatorDefaults.senderIds[0];
  const sim = buildSmsSimulator({
    deliveryReportUrl: `http://127.0.0.1:${settings.PORT}/api/sms/callback/delivery?token=${secret}`,
    senderIds: [senderId],
  });
  const port = settings.SMS_SIM_PORT;
  const baseUrl = await listenNaming("SMS_SIM_PORT", simulatorHost, port, () => sim.listen({ host: simulatorHost, port }));
  logger.info(
    { url: baseUrl },
    "SMS simulator started in-process (texts: GET /dev/outbox/texts or the simulator's /sim/messages)",
  );
  return {
    baseUrl,
    username: smsSimulatorDefaults.username,
    apiKey: smsSimulatorDefaults.apiKey,
    senderId,
    close: () => sim.close(),
  };
}

/** The CAPTCHA stand-in listening, the secret the service uses with it, and its "solved widget". */
export interface DevCaptcha {
  /** Its Turnstile siteverify URL (CAPTCHA_VERIFY_URL). */
  verifyUrl: string;
  secret: string;
  /** A token as a solved widget gives the browser (the demo asks for one through /demo/shop/captcha). */
  issueToken(): string;
  close(): Promise<void>;
}

/** The CAPTCHA stand-in (apps/captcha-sim) on 127.0.0.1, any free port: the demo's CAPTCHA works offline. */
export async function startDevCaptcha(logger: Logger): Promise<DevCaptcha> {
  const { buildCaptchaSimulator } = await import("@mteja/captcha-sim");
  const secret = randomBytes(16).toString("hex");
  const sim = buildCaptchaSimulator({ secret });
  const baseUrl = await sim.listen({ host: simulatorHost, port: 0 });
  logger.info({ url: baseUrl }, "CAPTCHA stand-in started in-process (Turnstile's siteverify; shops turn CAPTCHA on per flow in settings.captcha)");
  return { verifyUrl: `${baseUrl}/turnstile/v0/siteverify`, secret, issueToken: () => sim.issueToken(), close: () => sim.close() };
}
