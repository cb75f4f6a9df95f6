/**
 * The payments side of the composition root: the platform's Daraja account from the MOMO_* settings
 * (whose account each tenant uses is the domain's rule, tenants/daraja-accounts.ts), the callback
 * addresses and the tokens of their secret (one per tenant, derived and kept by the object built here:
 * docs/mpesa.md#callback-tokens), the reconciliation worker, and, on the dev start, the Daraja
 * simulator in-process (dev-simulators.ts). Which Daraja a client talks to is daraja-provider.ts's
 * choice. See docs/mpesa.md.
 */
import { securityCredentialFromCertificate, worstCaseRequestMs, type AccessTokenStore } from "@mteja/daraja";
import type { Database } from "@mteja/db";
import {
  CALLBACK_ROUTE_PREFIX,
  callbackRoutes,
  createCallbackTokens,
  createDarajaAccounts,
  createPaymentEvents,
  createReconciler,
  createStatusStreamSlots,
  darajaFlows,
  type DataCipher,
  type PaymentPorts,
  type Logger,
  type DarajaPorts,
  type PlatformDarajaAccount,
  type ReconcileReport,
  type StatusStreamSlots,
} from "@mteja/domain";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import type { Settings } from "../settings.js";
import { createDarajaProviders } from "./daraja-provider.js";
import { startDevDaraja } from "./dev-simulators.js";
import { configuredCallbackUrls, type CallbackUrls } from "./payments-settings.js";

export interface PaymentsRuntime {
  daraja: DarajaPorts;
  /** The Daraja this service calls: MOMO_BASE_URL, or the dev start's simulator wherever it listens. */
  darajaBaseUrl: string | undefined;
  /** Starts the reconciliation loop (every MOMO_RECONCILE_INTERVAL_MS; 0 = never, runOnce only). */
  start(): void;
  /** Stops the loop (waiting for the run in flight) and the in-process simulator, if any. */
  close(): Promise<void>;
}

/** The Daraja settings in effect: the MOMO_* settings, or the in-process simulator's. */
interface EffectiveDarajaAccount extends Omit<PlatformDarajaAccount, "b2c"> {
  baseUrl: string;
  callbackSecret: string;
  /** The platform's own B2C account (the default tenant pays out from it unless it has its own). */
  b2c?: PlatformDarajaAccount["b2c"];
  /**
   * Where each callback arrives, by kind, for the flows configured (the STK one always): without the
   * B2C ones no tenant can pay out, whoever's account it is.
   */
  callbackUrls: CallbackUrls;
}

/** The account part of the settings in effect (without where Daraja is and where it calls back). */
function platformAccount(effective: EffectiveDarajaAccount): PlatformDarajaAccount {
  const { baseUrl: _base, callbackSecret: _secret, callbackUrls: _urls, b2c, ...account } = effective;
  return { ...account, b2c };
}

/** Whether this start runs the Daraja simulator in-process (on SIM_PORT). */
export function darajaSimulatorWanted(settings: Settings): boolean {
  if (settings.MOMO_SIMULATOR === "on") return true;
  if (settings.MOMO_SIMULATOR === "off") return false;
  return settings.MTEJA_DEV_START && !settings.MOMO_BASE_URL && settings.NODE_ENV !== "production";
}

function fromSettings(settings: Settings): EffectiveDarajaAccount | undefined {
  const s = settings;
  if (!s.MOMO_BASE_URL || !s.MOMO_CONSUMER_KEY || !s.MOMO_CONSUMER_SECRET || !s.MOMO_SHORTCODE || !s.MOMO_PASSKEY || !s.MOMO_CALLBACK_URL || !s.MOMO_CALLBACK_SECRET) {
    return undefined;
  }
  const effective: EffectiveDarajaAccount = {
    baseUrl: s.MOMO_BASE_URL,
    consumerKey: s.MOMO_CONSUMER_KEY,
    consumerSecret: s.MOMO_CONSUMER_SECRET,
    shortcode: s.MOMO_SHORTCODE,
    passkey: s.MOMO_PASSKEY,
    transactionType: s.MOMO_TRANSACTION_TYPE,
    tillNumber: s.MOMO_TILL_NUMBER,
    callbackSecret: s.MOMO_CALLBACK_SECRET,
    callbackUrls: configuredCallbackUrls(s),
  };
  if (s.MOMO_B2C_SHORTCODE && s.MOMO_INITIATOR_NAME && effective.callbackUrls.b2c_result) {
    const credential =
      s.MOMO_SECURITY_CREDENTIAL ??
      (s.MOMO_INITIATOR_PASSWORD && s.MOMO_CERTIFICATE_PATH
        ? securityCredentialFromCertificate(readFileSync(s.MOMO_CERTIFICATE_PATH), s.MOMO_INITIATOR_PASSWORD)
        : undefined);
    if (credential) effective.b2c = { shortcode: s.MOMO_B2C_SHORTCODE, initiatorName: s.MOMO_INITIATOR_NAME, securityCredential: credential };
  }
  return effective;
}

interface DevSimulator {
  effective: EffectiveDarajaAccount;
  close(): Promise<void>;
}

/** The dev start (`node scripts/run.mjs start`): the simulator on 127.0.0.1:SIM_PORT, wired to this service. */
async function startDevSimulator(settings: Settings, logger: Logger): Promise<DevSimulator> {
  const sim = await startDevDaraja(settings, logger);
  // The shops' callback tokens are derived from it; it is never put in a URL itself.
  const secret = settings.MOMO_CALLBACK_SECRET ?? randomBytes(32).toString("hex");
  const self = `http://127.0.0.1:${settings.PORT}${CALLBACK_ROUTE_PREFIX}`;
  return {
    effective: {
      baseUrl: sim.baseUrl,
      consumerKey: sim.consumerKey,
      consumerSecret: sim.consumerSecret,
      shortcode: sim.shortcode,
      passkey: sim.passkey,
      transactionType: "CustomerPayBillOnline",
      tillNumber: undefined,
      callbackSecret: secret,
      b2c: sim.b2c,
      // Every callback of the flow registry, at this service.
      callbackUrls: Object.fromEntries(callbackRoutes.map(({ kind, path }) => [kind, `${self}/${path}`])),
    },
    close: () => sim.close(),
  };
}

export interface PaymentsRuntimeOptions {
  /** Decrypts tenants' stored Daraja secrets. */
  cipher: DataCipher;
  /** The fetch every Daraja client uses (main.ts passes the metrics-instrumented one). */
  darajaFetch?: typeof fetch;
  /** Where the simulated provider keeps its outcomes. */
  db: Database;
  now: () => Date;
  /** The per-user cap on status subscriptions, when it is shared (Redis); else counted in this instance. */
  statusStreams?: StatusStreamSlots;
  /** The live accounts' Daraja access tokens, when they are shared (Redis); else kept by each client. */
  tokenStore?: AccessTokenStore;
}

export async function createPaymentsRuntime(settings: Settings, logger: Logger, getDeps: () => PaymentPorts, options: PaymentsRuntimeOptions): Promise<PaymentsRuntime> {
  const simulator = darajaSimulatorWanted(settings) ? await startDevSimulator(settings, logger) : undefined;
  const effective = simulator?.effective ?? fromSettings(settings);
  if (!effective) logger.info({}, "M-Pesa is not configured (MOMO_BASE_URL unset): the payment operations answer PAYMENT_PROVIDER_UNAVAILABLE");

  const reconciler = createReconciler(darajaFlows, getDeps, {
    paceMs: settings.MOMO_RECONCILE_PACE_MS,
    leaseSeconds: settings.MOMO_RECONCILE_LEASE_SECONDS,
  });
  const providers = createDarajaProviders({
    baseUrl: effective?.baseUrl,
    timeoutMs: settings.MOMO_TIMEOUT_MS,
    logger,
    fetch: options.darajaFetch,
    db: options.db,
    now: options.now,
    tokenStore: options.tokenStore,
  });
  const accounts = createDarajaAccounts({
    platform: effective && platformAccount(effective),
    defaultTenantId: settings.DEFAULT_TENANT_ID,
    cipher: options.cipher,
    logger,
    connect: (account) => providers.connect(account, "live"),
    // Test mode (docs/test-mode.md): the simulated provider, whose account is its own.
    simulated: () => providers.simulated(),
  });
  const daraja: DarajaPorts = {
    darajaFor: accounts.darajaFor,
    hasPayoutAccount: accounts.hasPayoutAccount,
    b2cEnabled: effective?.callbackUrls.b2c_result !== undefined,
    callbackTokens: effective ? createCallbackTokens(effective.callbackSecret) : null,
    settings: {
      // Each request's URL gets its tenant's token (callbackUrlFor); the addresses here carry none.
      callbackUrls: effective?.callbackUrls ?? {},
      reconcileAfterSeconds: settings.MOMO_RECONCILE_AFTER_SECONDS,
      // The clients' own worst case (they share MOMO_TIMEOUT_MS and the default retry delays).
      promptInFlightSeconds: Math.ceil(
        worstCaseRequestMs({ timeoutMs: settings.MOMO_TIMEOUT_MS, sharedTokens: options.tokenStore !== undefined }) / 1000,
      ),
      unknownPromptWindowSeconds: settings.MOMO_UNKNOWN_PROMPT_WINDOW_SECONDS,
      callbackAllowedIps: settings.MOMO_CALLBACK_ALLOWED_IPS,
      platformShortcode: effective?.shortcode ?? null,
      pullIntervalSeconds: settings.MOMO_PULL_INTERVAL_SECONDS,
    },
    events: createPaymentEvents(),
    statusStreams: options.statusStreams ?? createStatusStreamSlots(),
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
    daraja,
    darajaBaseUrl: effective?.baseUrl,
    start: schedule,
    async close() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await inFlight;
      providers.close();
      await simulator?.close();
    },
  };
}
