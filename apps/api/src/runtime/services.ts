/**
 * Builds the long-lived services from the settings: database (migrated), tenants, keys, password
 * hashing, limits. The composition root owns them and closes them on shutdown.
 */
import { openDatabase, type Database } from "@mteja/db";
import {
  configuredKeySet,
  createAccessTokens,
  createDataCipher,
  createPasswordHasher,
  createRefreshSuccessor,
  createSigningKeyRing,
  createTenantDirectory,
  cryptoRandom,
  ensureDefaultTenant,
  loadStoredKeySet,
  sealStoredMomoSecrets,
  systemClock,
  tokenDefaults,
  unlimited,
  unobservedEvents,
  createStatusStreamSlots,
  MAX_OPEN_STATUS_STREAMS_PER_USER,
  type StatusStreamSlots,
  type Clock,
  type Deps,
  type DomainEvents,
  type Logger,
  type Random,
} from "@mteja/domain";
import { Redis } from "ioredis";
import type { Settings } from "../settings.js";
import { adminApiKeyOf } from "./admin-key.js";
import { databaseOptionsOf } from "./database-options.js";
import { createLimiter } from "./limiter.js";
import { watchRateLimitStore, type RateLimitStore } from "./rate-limit-store.js";
import { createMailRuntime, type MailRuntime } from "./mail.js";
import { createGoogleRuntime } from "./google.js";
import { createSmsRuntime, type SmsRuntime } from "./sms.js";
import { createClosers } from "./closers.js";
import { createPaymentsRuntime, type PaymentsRuntime } from "./payments.js";
import { warnOfSharedC2bTokens } from "./c2b-token-form.js";
import { createWebhooksRuntime, type WebhooksRuntime } from "./webhooks.js";
import { createRetentionRuntime, type RetentionRuntime } from "./retention.js";
import { createPasswordHashing } from "./password-hashing/index.js";
import { resolveDataEncryptionKey } from "./secrets.js";
import { startStatusNotices, type StatusNotices } from "./status-notices.js";
import { createSharedStreamSlots } from "./shared-stream-slots.js";
import { createRedisAccessTokenStore } from "./daraja-token-store.js";

export interface Services {
  deps: Deps;
  /** The mail outbox worker (started here; stopped by close()). */
  mail: MailRuntime;
  /** The SMS outbox worker (started here; stopped by close()). */
  sms: SmsRuntime;
  /** M-Pesa: Daraja clients, the reconciliation worker (started here; stopped by close()), the dev simulator. */
  payments: PaymentsRuntime;
  /** The webhook delivery worker (started here; stopped by close()). */
  webhooks: WebhooksRuntime;
  /** The pruning job (started here; stopped by close()). */
  retention: RetentionRuntime;
  /** The Redis that shares the abuse-limit counters, when REDIS_URL is set: its state for /readyz and /metrics. */
  rateLimitStore: RateLimitStore | undefined;
  /** On PostgreSQL, with the workers: the connection listening for payment status notices (/readyz, /metrics). */
  statusListener: StatusNotices | undefined;
  close(): Promise<void>;
  /** The part close() is waiting for right now (named in a shutdown that overruns its deadline). */
  stopping(): string | undefined;
}

export interface ServiceOverrides {
  /** An already open database (tests create one per suite). */
  db?: Database;
  /** The service clock's now() (tests move it by hand); real pauses stay on the system clock. */
  now?: () => Date;
  /** Tests may make chance deterministic; production always uses node:crypto. */
  random?: Random;
  /** The fetch of every Daraja client: main.ts passes metrics.instrumentDarajaFetch() (http/metrics.ts). */
  darajaFetch?: typeof fetch;
  /** Where the domain reports sign-in outcomes: main.ts passes its metrics (http/metrics.ts); otherwise nobody counts. */
  events?: DomainEvents;
  /** false: build the services without starting the background workers (the operator CLI). */
  startWorkers?: boolean;
}

export async function createServices(settings: Settings, logger: Logger, overrides: ServiceOverrides = {}): Promise<Services> {
  const db = overrides.db ?? (await openDatabase(databaseOptionsOf(settings)));
  const closers = createClosers();
  if (!overrides.db) closers.add("database", () => db.close());
  try {
    const report = await db.migrate();
    if (report.applied.length) logger.info({ applied: report.applied }, "database migrations applied");
    await ensureDefaultTenant(db, settings.DEFAULT_TENANT_ID, settings.DEFAULT_TENANT_NAME);

    const clock: Clock = overrides.now ? { ...systemClock, now: overrides.now } : systemClock;
    const random = overrides.random ?? cryptoRandom;
    const now = () => clock.now();
    const dataEncryptionKey = await resolveDataEncryptionKey(settings.DATA_ENCRYPTION_KEY, settings.DATA_DIR);
    const cipher = createDataCipher(dataEncryptionKey, random);
    const sealed = await sealStoredMomoSecrets(db, cipher);
    if (sealed.length) logger.info({ tenants: sealed }, "tenants' M-Pesa secrets stored in clear were encrypted");
    const configuredKeys = settings.JWT_PRIVATE_KEY ? configuredKeySet(settings.JWT_PRIVATE_KEY) : undefined;
    const keys = await createSigningKeyRing({
      load: configuredKeys ? async () => configuredKeys : () => loadStoredKeySet(db, cipher, now()),
      now,
      maxAgeSeconds: tokenDefaults.signingKeysMaxAgeSeconds,
      unknownKidReloadSeconds: tokenDefaults.unknownKidReloadSeconds,
      onReloadError: (error) => logger.warn({ err: error }, "could not re-read the signing keys; keeping those loaded"),
    });
    const tokens = createAccessTokens({
      keys,
      issuer: settings.JWT_ISSUER,
      audience: settings.JWT_AUDIENCE,
      ttlSeconds: settings.ACCESS_TOKEN_TTL_SECONDS,
      now,
      random,
      verifiedTokensKept: settings.ACCESS_TOKEN_CACHE_SIZE,
    });

    let redis: Redis | undefined;
    let rateLimitStore: RateLimitStore | undefined;
    if (settings.REDIS_URL) {
      redis = new Redis(settings.REDIS_URL, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: true });
      const client = redis;
      rateLimitStore = watchRateLimitStore(client, logger);
      // quit() would wait for a Redis that is down; without a connection there is nothing to flush.
      closers.add("redis", async () => (client.status === "ready" ? client.quit() : client.disconnect()));
      await redis.connect();
    }
    const limiter = settings.RATE_LIMITS === "on" ? createLimiter({ redis, rules: settings.RATE_LIMIT_RULES, keyPrefix: settings.REDIS_KEY_PREFIX, nowMs: () => clock.now().getTime() }) : unlimited;

    const mail = createMailRuntime(settings, db, logger, now, random, overrides.startWorkers !== false);
    closers.add("mail outbox worker", () => mail.close());
    const sms = await createSmsRuntime(settings, db, logger, now, random);
    closers.add("SMS outbox worker", () => sms.close());
    const google = await createGoogleRuntime(settings, db, cipher, logger, now);
    closers.add("Google simulator", () => google.close());

    const statusStreams = redis && sharedStatusStreams(settings, redis, logger);
    // The reconciler reads deps when it runs, after they are built below.
    const payments = await createPaymentsRuntime(settings, logger, () => deps, {
      cipher,
      db,
      now,
      ...(overrides.darajaFetch ? { darajaFetch: overrides.darajaFetch } : {}),
      ...(statusStreams ? { statusStreams } : {}),
      ...(redis ? { tokenStore: createRedisAccessTokenStore({ redis, keyPrefix: settings.REDIS_KEY_PREFIX }) } : {}),
    });
    closers.add("payment reconciliation", () => payments.close());
    const webhooks = createWebhooksRuntime(settings, logger, () => deps);
    closers.add("webhook delivery worker", () => webhooks.close());
    const retention = createRetentionRuntime(settings, logger, () => deps);
    closers.add("pruning job", () => retention.close());

    const passwordHashing = createPasswordHashing(settings, logger);
    closers.add("password hashing", () => passwordHashing.close());
    const adminApiKey = adminApiKeyOf(settings);
    // Every area's ports (packages/domain/src/*/ports.ts) in one object: the procedures and each runtime
    // above take the part their area declares.
    const deps: Deps = {
      db,
      clock,
      random,
      cipher,
      refreshSuccessor: createRefreshSuccessor(dataEncryptionKey),
      tokens,
      limiter,
      logger,
      passwords: await createPasswordHasher({
        hashing: passwordHashing,
        clock,
        concurrency: settings.PASSWORD_HASH_CONCURRENCY,
        maxWaitMs: settings.PASSWORD_HASH_MAX_WAIT_MS,
        shedPauseMs: settings.PASSWORD_HASH_SHED_PAUSE_MS,
      }),
      tenants: createTenantDirectory(db, { ttlMs: 30_000, clock }),
      nudgeMail: () => mail.nudge(),
      nudgeSms: () => sms.nudge(),
      google: google.provider,
      events: overrides.events ?? unobservedEvents,
      daraja: payments.daraja,
      webhooks: webhooks.deps,
      reports: { batchSize: settings.REPORT_BATCH_SIZE },
      config: {
        nodeEnv: settings.NODE_ENV,
        defaultTenantId: settings.DEFAULT_TENANT_ID,
        appUrl: settings.APP_URL,
        publicUrl: settings.PUBLIC_URL,
        cookieSecure: settings.COOKIE_SECURE,
        adminApiKey: adminApiKey.key,
        adminApiKeyLoopbackOnly: adminApiKey.loopbackOnly,
        rateLimits: settings.RATE_LIMITS === "on",
        accessTokenTtlSeconds: settings.ACCESS_TOKEN_TTL_SECONDS,
        refreshIdleSeconds: settings.REFRESH_IDLE_SECONDS,
        refreshAbsoluteSeconds: settings.REFRESH_ABSOLUTE_SECONDS,
        refreshReuseGraceSeconds: settings.REFRESH_REUSE_GRACE_SECONDS,
        issuer: settings.JWT_ISSUER,
        audience: settings.JWT_AUDIENCE,
        stepUpWindowSeconds: settings.STEP_UP_WINDOW_SECONDS,
        phoneCodeTtlSeconds: settings.PHONE_CODE_TTL_SECONDS,
        smsCallbackSecret: sms.callbackSecret,
      },
    };
    let statusListener: StatusNotices | undefined;
    if (overrides.startWorkers !== false) {
      const notices = startStatusNotices(settings, db, payments.daraja.events, logger);
      if (notices) closers.add("payment status listener", () => notices.close());
      statusListener = notices;
      await warnOfSharedC2bTokens(deps);
      payments.start();
      webhooks.start();
      retention.start();
    }
    return {
      deps,
      mail,
      sms,
      payments,
      webhooks,
      retention,
      rateLimitStore,
      statusListener,
      close: () => closers.closeAll(),
      stopping: () => closers.stopping(),
    };
  } catch (error) {
    await closers.closeAll();
    throw error;
  }
}

/** The per-user subscription cap, shared through Redis (docs/deployment.md#shared-caps). */
function sharedStatusStreams(settings: Settings, redis: Redis, logger: Logger): StatusStreamSlots {
  return createSharedStreamSlots({
    redis,
    keyPrefix: settings.REDIS_KEY_PREFIX,
    limit: MAX_OPEN_STATUS_STREAMS_PER_USER,
    ttlMs: settings.STATUS_SUBSCRIPTION_TTL_SECONDS * 1000,
    local: createStatusStreamSlots(),
    onError: (error) => logger.warn({ err: error }, "the subscription cap could not be counted in Redis: counted here"),
  });
}
