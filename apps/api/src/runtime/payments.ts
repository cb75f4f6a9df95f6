/**
 * The payments side of the composition root: Daraja clients built from the MOMO_* settings (a tenant's
 * own M-Pesa credentials from its settings win), the callback addresses with their secret token, the
 * reconciliation worker, and, on the dev start, the Daraja simulator in-process. See docs/mpesa.md.
 */
import { createDarajaClient, securityCredentialFromCertificate, worstCaseRequestMs, type DarajaClient, type DarajaClientConfig } from "@mteja/daraja";
import { buildDarajaSimulator, createSimulatorKeyFiles, simulatorDefaults } from "@mteja/daraja-sim";
import { createPaymentEvents, createReconciler, type Deps, type Logger, type MomoDeps, type ReconcileReport, type Tenant } from "@mteja/domain";
import { createPrivateKey, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Settings } from "../settings.js";
import { b2cStatusUrl, withCallbackToken } from "./payments-settings.js";

export interface PaymentsRuntime {
  momo: MomoDeps;
  /** Starts the reconciliation loop (every MOMO_RECONCILE_INTERVAL_MS; 0 = never, runOnce only). */
  start(): void;
  /** Stops the loop (waiting for the run in flight) and the in-process simulator, if any. */
  close(): Promise<void>;
}

/** The Daraja settings in effect: the MOMO_* settings, or the in-process simulator's. */
interface EffectiveMomo {
  baseUrl: string;
  consumerKey: string;
  consumerSecret: string;
  shortcode: string;
  passkey: string;
  transactionType: DarajaClientConfig["transactionType"];
  tillNumber: string | undefined;
  callbackUrl: string;
  callbackSecret: string;
  b2c?: { shortcode: string; initiatorName: string; securityCredential: string; resultUrl: string; timeoutUrl: string; statusUrl: string };
}

function simulatorWanted(settings: Settings): boolean {
  if (settings.MOMO_SIMULATOR === "on") return true;
  if (settings.MOMO_SIMULATOR === "off") return false;
  return settings.MTEJA_DEV_START && !settings.MOMO_BASE_URL && settings.NODE_ENV !== "production";
}

function fromSettings(settings: Settings): EffectiveMomo | undefined {
  const s = settings;
  if (!s.MOMO_BASE_URL || !s.MOMO_CONSUMER_KEY || !s.MOMO_CONSUMER_SECRET || !s.MOMO_SHORTCODE || !s.MOMO_PASSKEY || !s.MOMO_CALLBACK_URL || !s.MOMO_CALLBACK_SECRET) {
    return undefined;
  }
  const effective: EffectiveMomo = {
    baseUrl: s.MOMO_BASE_URL,
    consumerKey: s.MOMO_CONSUMER_KEY,
    consumerSecret: s.MOMO_CONSUMER_SECRET,
    shortcode: s.MOMO_SHORTCODE,
    passkey: s.MOMO_PASSKEY,
    transactionType: s.MOMO_TRANSACTION_TYPE,
    tillNumber: s.MOMO_TILL_NUMBER,
    callbackUrl: s.MOMO_CALLBACK_URL,
    callbackSecret: s.MOMO_CALLBACK_SECRET,
  };
  const statusUrl = b2cStatusUrl(s);
  if (s.MOMO_B2C_SHORTCODE && s.MOMO_INITIATOR_NAME && s.MOMO_B2C_RESULT_URL && s.MOMO_B2C_TIMEOUT_URL && statusUrl) {
    const credential =
      s.MOMO_SECURITY_CREDENTIAL ??
      (s.MOMO_INITIATOR_PASSWORD && s.MOMO_CERTIFICATE_PATH
        ? securityCredentialFromCertificate(readFileSync(s.MOMO_CERTIFICATE_PATH), s.MOMO_INITIATOR_PASSWORD)
        : undefined);
    if (credential) {
      effective.b2c = {
        shortcode: s.MOMO_B2C_SHORTCODE,
        initiatorName: s.MOMO_INITIATOR_NAME,
        securityCredential: credential,
        resultUrl: s.MOMO_B2C_RESULT_URL,
        timeoutUrl: s.MOMO_B2C_TIMEOUT_URL,
        statusUrl,
      };
    }
  }
  return effective;
}

interface DevSimulator {
  effective: EffectiveMomo;
  close(): Promise<void>;
}

/** The dev start (`node scripts/run.mjs start`): the simulator on 127.0.0.1:SIM_PORT, wired to this service. */
async function startDevSimulator(settings: Settings, logger: Logger): Promise<DevSimulator> {
  const dataDir = path.resolve(settings.DATA_DIR);
  const keys = createSimulatorKeyFiles({
    publicKeyPath: path.join(dataDir, "daraja-sim-public.pem"),
    privateKeyPath: path.join(dataDir, "daraja-sim-private.pem"),
  });
  const sim = buildDarajaSimulator({ privateKey: createPrivateKey(keys.privateKeyPem) });
  const simUrl = await sim.listen({ host: "127.0.0.1", port: settings.SIM_PORT });
  // Hex: a base64 secret could spell a word Daraja refuses in callback URLs ("sql", "exe", …).
  const secret = settings.MOMO_CALLBACK_SECRET ?? randomBytes(32).toString("hex");
  const self = `http://127.0.0.1:${settings.PORT}/api/momo/callback`;
  logger.info({ url: simUrl }, "Daraja simulator started in-process (magic amounts: docs/daraja-simulator.md)");
  return {
    effective: {
      baseUrl: simUrl,
      consumerKey: simulatorDefaults.consumerKey,
      consumerSecret: simulatorDefaults.consumerSecret,
      shortcode: simulatorDefaults.shortcode,
      passkey: simulatorDefaults.passkey,
      transactionType: "CustomerPayBillOnline",
      tillNumber: undefined,
      callbackUrl: `${self}/stkpush`,
      callbackSecret: secret,
      b2c: {
        shortcode: simulatorDefaults.b2cShortcode,
        initiatorName: simulatorDefaults.initiatorName,
        securityCredential: securityCredentialFromCertificate(keys.publicKeyPem, simulatorDefaults.initiatorPassword),
        resultUrl: `${self}/b2c/result`,
        timeoutUrl: `${self}/b2c/timeout`,
        statusUrl: `${self}/b2c/status`,
      },
    },
    close: () => sim.close(),
  };
}

/** One Daraja client per distinct set of credentials (each caches its own OAuth token). */
function createClientDirectory(effective: EffectiveMomo | undefined, settings: Settings, logger: Logger, darajaFetch?: typeof fetch) {
  const clients = new Map<string, DarajaClient>();
  return (tenant: Pick<Tenant, "id" | "settings">): DarajaClient | null => {
    if (!effective) return null;
    const own = tenant.settings.momo ?? {};
    const config: DarajaClientConfig = {
      baseUrl: effective.baseUrl,
      consumerKey: own.consumerKey ?? effective.consumerKey,
      consumerSecret: own.consumerSecret ?? effective.consumerSecret,
      shortcode: own.shortcode ?? effective.shortcode,
      passkey: own.passkey ?? effective.passkey,
      transactionType: own.transactionType ?? effective.transactionType,
      // A tenant with its own shortcode pays into it unless it names a till.
      partyB: own.tillNumber ?? (own.shortcode ? undefined : effective.tillNumber),
      timeoutMs: settings.MOMO_TIMEOUT_MS,
      ...(effective.b2c
        ? { b2cShortcode: effective.b2c.shortcode, initiatorName: effective.b2c.initiatorName, securityCredential: effective.b2c.securityCredential }
        : {}),
    };
    const key = JSON.stringify(config);
    let client = clients.get(key);
    if (!client) {
      client = createDarajaClient({ ...config, logger, ...(darajaFetch ? { fetch: darajaFetch } : {}) });
      if (clients.size > 1000) clients.clear();
      clients.set(key, client);
    }
    return client;
  };
}

/** `darajaFetch`: the fetch every Daraja client uses (main.ts passes the metrics-instrumented one). */
export async function createPaymentsRuntime(settings: Settings, logger: Logger, getDeps: () => Deps, options: { darajaFetch?: typeof fetch } = {}): Promise<PaymentsRuntime> {
  const simulator = simulatorWanted(settings) ? await startDevSimulator(settings, logger) : undefined;
  const effective = simulator?.effective ?? fromSettings(settings);
  if (!effective) logger.info({}, "M-Pesa is not configured (MOMO_BASE_URL unset): the momo operations answer PAYMENT_PROVIDER_UNAVAILABLE");
  const token = (url: string | undefined) => (url && effective ? withCallbackToken(url, effective.callbackSecret) : null);

  const reconciler = createReconciler(getDeps, { paceMs: settings.MOMO_RECONCILE_PACE_MS });
  const momo: MomoDeps = {
    darajaFor: createClientDirectory(effective, settings, logger, options.darajaFetch),
    b2cEnabled: effective?.b2c !== undefined,
    settings: {
      stkCallbackUrl: token(effective?.callbackUrl),
      b2cResultUrl: token(effective?.b2c?.resultUrl),
      b2cTimeoutUrl: token(effective?.b2c?.timeoutUrl),
      b2cStatusUrl: token(effective?.b2c?.statusUrl),
      callbackSecret: effective?.callbackSecret ?? null,
      reconcileAfterSeconds: settings.MOMO_RECONCILE_AFTER_SECONDS,
      // The clients' own worst case (they share MOMO_TIMEOUT_MS and the default retry delays).
      promptInFlightSeconds: Math.ceil(worstCaseRequestMs({ timeoutMs: settings.MOMO_TIMEOUT_MS }) / 1000),
      unknownPromptWindowSeconds: settings.MOMO_UNKNOWN_PROMPT_WINDOW_SECONDS,
      callbackAllowedIps: settings.MOMO_CALLBACK_ALLOWED_IPS,
    },
    events: createPaymentEvents(),
    reconciler,
  };

  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let inFlight: Promise<ReconcileReport | void> = Promise.resolve();
  const schedule = () => {
    if (stopped || settings.MOMO_RECONCILE_INTERVAL_MS === 0 || !effective) return;
    timer = setTimeout(() => {
      inFlight = reconciler
        .runOnce()
        .catch((error: unknown) => logger.error({ err: error }, "payment reconciliation run failed"))
        .finally(schedule);
    }, settings.MOMO_RECONCILE_INTERVAL_MS);
    timer.unref();
  };

  return {
    momo,
    start: schedule,
    async close() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await inFlight;
      await simulator?.close();
    },
  };
}
