/**
 * Every process setting, read from the environment once at start and validated with zod.
 * A bad value stops the start with a message naming the setting (docs/configuration.md has a row for each).
 */
import { databaseTimeoutDefaults as timeouts } from "@mteja/db";
import { defaultWebhookRetrySchedule } from "@mteja/domain";
import { parseSender } from "@mteja/mailer";
import { availableParallelism } from "node:os";
import { z } from "zod";
import { parseLimitRules } from "./runtime/limiter.js";
import { checkMomoSettings, momoSettingsShape } from "./runtime/payments-settings.js";
import { retentionSettingsShape } from "./runtime/retention-settings.js";
import { checkSmsSettings, smsSettingsShape } from "./runtime/sms-settings.js";
import { checkGoogleSettings, googleSettingsShape } from "./runtime/google-settings.js";

const bool = (name: string) =>
  z
    .enum(["true", "false", "1", "0", "yes", "no", "on", "off"], { error: `${name} must be true or false` })
    .transform((v) => ["true", "1", "yes", "on"].includes(v));

const url = (name: string, protocols: RegExp) => z.url({ protocol: protocols, error: `${name} must be a URL (${protocols.source})` });

const day = 24 * 3600;

/** A whole number of seconds within [min, max], each failure naming the setting. */
const seconds = (name: string, min: number, max: number) =>
  z.coerce
    .number({ error: `${name} must be a number of seconds` })
    .int(`${name} must be a whole number of seconds`)
    .min(min, `${name} must be at least ${min}`)
    .max(max, `${name} must be at most ${max}`);

const settingsSchema = z
  .object({
    // Unset means production: only the dev start (scripts/run.mjs start) says development.
    NODE_ENV: z.enum(["development", "production", "test"]).default("production"),
    PORT: z.coerce.number({ error: "PORT must be a number" }).int().min(0).max(65535).default(3000),
    /** Default: every interface in production, loopback only outside it (see listenHost below). */
    HOST: z.string().min(1).optional(),
    DATABASE_URL: url("DATABASE_URL", /^postgres(ql)?$/).optional(),
    DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
    /** 0 behind a pooler that cannot keep prepared statements (PgBouncer in transaction mode before 1.21). */
    DATABASE_PREPARED_STATEMENTS: z.coerce.number().int().min(0).max(10_000).default(500),
    /** Longest waits for a connection (new or pooled) and an answer; 0: none (operations.md#database-outages). */
    DATABASE_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(timeouts.connectTimeoutMs),
    DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(timeouts.statementTimeoutMs),
    /**
     * How long a stopping instance goes on serving with /readyz at 503 before its port closes, so the
     * balancer stops sending first (docs/operations.md#draining). Default: 5 s in production, 0 elsewhere.
     */
    SHUTDOWN_DRAIN_MS: z.coerce
      .number({ error: "SHUTDOWN_DRAIN_MS must be a number" })
      .int()
      .min(0)
      .max(120_000)
      .optional(),
    /**
     * Where the one listening connection goes (LISTEN for payment status notices); default DATABASE_URL.
     * Direct or session-pooled: a transaction-pooling PgBouncer cannot hold a LISTEN (docs/deployment.md).
     */
    DATABASE_LISTEN_URL: url("DATABASE_LISTEN_URL", /^postgres(ql)?$/).optional(),
    DATA_DIR: z.string().min(1).default("./data"),
    REDIS_URL: url("REDIS_URL", /^rediss?$/).optional(),
    SMTP_URL: url("SMTP_URL", /^smtps?$/).optional(),
    MAIL_FROM: z
      .string()
      .default("no-reply@mteja.local")
      .refine((v) => parseSender(v) !== undefined, 'MAIL_FROM must be one address: addr@example.com, Name <addr@example.com> or "Name, Inc." <addr@example.com>'),
    APP_URL: url("APP_URL", /^https?$/).default("http://localhost:3000"),
    PUBLIC_URL: url("PUBLIC_URL", /^https?$/).optional(),
    ADMIN_API_KEY: z.string().min(16, "ADMIN_API_KEY must be at least 16 characters").optional(),
    COOKIE_SECURE: bool("COOKIE_SECURE").default(true),
    CORS_ORIGINS: z
      .string()
      .default("")
      .transform((v) => v.split(",").map((s) => s.trim()).filter(Boolean))
      .pipe(z.array(url("CORS_ORIGINS", /^https?$/))),
    TRUST_PROXY: z.string().optional(),
    RATE_LIMITS: z.enum(["on", "off"], { error: "RATE_LIMITS must be on or off" }).default("on"),
    RATE_LIMIT_RULES: z
      .string()
      .default("")
      .transform((value, ctx) => {
        const parsed = parseLimitRules(value);
        if (typeof parsed === "string") {
          ctx.addIssue({ code: "custom", message: `RATE_LIMIT_RULES must be rule=points/seconds[,…]: ${parsed}` });
          return z.NEVER;
        }
        return parsed;
      }),
    /**
     * With REDIS_URL: how long a place of the per-user subscription cap outlives the instance holding it
     * (renewed every third of it while the subscription is open; docs/deployment.md#shared-caps).
     */
    STATUS_SUBSCRIPTION_TTL_SECONDS: z.coerce.number().int().min(3).max(3600).default(30),
    REDIS_KEY_PREFIX: z.string().regex(/^[\w:.-]{1,64}$/, "REDIS_KEY_PREFIX must be 1-64 letters, digits or _ : . -").default("mteja"),
    LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
    DEFAULT_TENANT_ID: z.string().regex(/^[a-z0-9][a-z0-9-]{1,62}$/, "DEFAULT_TENANT_ID must be a tenant slug").default("default"),
    DEFAULT_TENANT_NAME: z.string().min(1).max(100).default("Mteja Shop"),
    JWT_PRIVATE_KEY: z.string().includes("PRIVATE KEY", { error: "JWT_PRIVATE_KEY must be a PEM private key" }).optional(),
    JWT_ISSUER: z.string().min(1).default("mteja"),
    JWT_AUDIENCE: z.string().min(1).default("mteja"),
    DATA_ENCRYPTION_KEY: z
      .string()
      .regex(/^[A-Za-z0-9+/_-]{43}=?$|^[0-9a-fA-F]{64}$/, "DATA_ENCRYPTION_KEY must be 32 bytes as base64 or hex")
      .optional(),
    ACCESS_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(3600).default(900),
    ACCESS_TOKEN_CACHE_SIZE: z.coerce.number().int().min(0).max(1_000_000).default(10_000),
    // The refresh cookie's lifetimes (docs/sessions.md#refresh-cookie), written on a session when it is
    // opened or refreshed: a change applies to each session from its next sign-in or refresh.
    REFRESH_IDLE_SECONDS: seconds("REFRESH_IDLE_SECONDS", 60, 366 * day).default(30 * day),
    REFRESH_ABSOLUTE_SECONDS: seconds("REFRESH_ABSOLUTE_SECONDS", 60, 366 * day).default(90 * day),
    /** How long a replaced refresh cookie still gets its successor (two tabs at once) before it counts as reused. */
    REFRESH_REUSE_GRACE_SECONDS: seconds("REFRESH_REUSE_GRACE_SECONDS", 0, 60).default(10),
    /** How long a session stays fresh after a sign-in or reauthenticate (docs/step-up.md); tests may shorten it. */
    STEP_UP_WINDOW_SECONDS: z.coerce.number({ error: "STEP_UP_WINDOW_SECONDS must be a number" }).int().min(1).max(3600).default(300),
    // One hash per core the service may run on (its CPU affinity: taskset, a container's cpuset). On one
    // core a second hashing process only doubles the CPU share hashing takes from reads in a login storm
    // (docs/performance.md, "The login storm, one hash per core").
    PASSWORD_HASH_CONCURRENCY: z.coerce.number().int().min(1).max(16).default(() => Math.min(16, availableParallelism())),
    // The nice value of the hashing processes that run queued hashes (PASSWORD_HASHER=processes): how much
    // of a busy core a login storm may take from reads (docs/performance.md, "The login storm, one hash per core").
    PASSWORD_HASH_NICENESS: z.coerce.number({ error: "PASSWORD_HASH_NICENESS must be a number" }).int().min(0).max(19).default(10),
    PASSWORD_HASH_MAX_WAIT_MS: z.coerce.number().int().min(0).max(60_000).default(4_000),
    PASSWORD_HASH_SHED_PAUSE_MS: z.coerce.number().int().min(0).max(10_000).default(1_000),
    PASSWORD_HASHER: z.enum(["threads", "processes"]).default("processes"),
    BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).max(10 * 1024 * 1024).default(64 * 1024),
    METRICS_TOKEN: z.string().min(16, "METRICS_TOKEN must be at least 16 characters").optional(),
    /** The demo app's built files, served at /demo/ outside production; default apps/demo/dist. */
    DEMO_DIR: z.string().min(1).optional(),
    /** Seconds before each retry of a webhook delivery, comma-separated; once used up the delivery has failed (docs/webhooks.md#delivery-and-retries). */
    WEBHOOK_RETRY_SCHEDULE: z
      .string()
      .regex(/^\s*\d{1,6}\s*(,\s*\d{1,6}\s*){0,199}$/, "WEBHOOK_RETRY_SCHEDULE must be 1-200 whole numbers of seconds, comma-separated")
      .transform((value) => value.split(",").map(Number))
      .pipe(z.array(z.number().int().min(0).max(7 * 24 * 3600, "WEBHOOK_RETRY_SCHEDULE delays must be at most 604800 seconds")))
      .default([...defaultWebhookRetrySchedule]),
    /** Production refuses http endpoints and ones resolving to internal addresses unless this is true. */
    WEBHOOK_ALLOW_PRIVATE_URLS: bool("WEBHOOK_ALLOW_PRIVATE_URLS").default(false),
    /** Webhook deliveries in flight on one instance at most; of them one tenant's at most WEBHOOK_TENANT_CONCURRENCY (docs/webhooks.md#fairness). */
    WEBHOOK_CONCURRENCY: z.coerce.number({ error: "WEBHOOK_CONCURRENCY must be a number" }).int().min(1).max(500).default(20),
    WEBHOOK_TENANT_CONCURRENCY: z.coerce.number({ error: "WEBHOOK_TENANT_CONCURRENCY must be a number" }).int().min(1).max(500).default(4),
    /**
     * How long a claimed mail or text is kept from other instances' outbox workers, renewed every third
     * of it while it is being sent: a crashed instance's are sent again about this long after the crash.
     */
    OUTBOX_LEASE_SECONDS: z.coerce
      .number({ error: "OUTBOX_LEASE_SECONDS must be a number" })
      .int()
      .min(2)
      .max(3600)
      .default(10),
    /**
     * How long a claimed webhook delivery is kept from other instances, renewed every third of it while it
     * is being sent: a crashed instance's deliveries are sent again about this long after the crash.
     */
    WEBHOOK_LEASE_SECONDS: z.coerce
      .number({ error: "WEBHOOK_LEASE_SECONDS must be a number" })
      .int()
      .min(2)
      .max(3600)
      .default(10),
    /** An endpoint whose every delivery has failed for this long is disabled (docs/webhooks.md#endpoints-that-keep-failing). */
    WEBHOOK_DISABLE_AFTER_SECONDS: z.coerce.number({ error: "WEBHOOK_DISABLE_AFTER_SECONDS must be a number" }).int().min(1).max(90 * 24 * 3600).default(3 * 24 * 3600),
    /**
     * The rows a report reads at a time from each kind of money movement (docs/reports.md): what one
     * report holds in memory, whatever the day's size; tests make it small to see the pages.
     */
    REPORT_BATCH_SIZE: z.coerce
      .number({ error: "REPORT_BATCH_SIZE must be a number" })
      .int()
      .min(1)
      .max(10_000)
      .default(1_000),
    /**
     * New passwords checked against Pwned Passwords by k-anonymity (docs/sign-in.md#breached-passwords).
     * Default: on in production, off elsewhere (tests and the dev start reach no outside service).
     */
    PASSWORD_BREACH_CHECK: bool("PASSWORD_BREACH_CHECK").optional(),
    PASSWORD_BREACH_API_URL: url("PASSWORD_BREACH_API_URL", /^https?$/).default("https://api.pwnedpasswords.com"),
    /** CAPTCHA on the flows a shop asks for (docs/sign-in.md#captcha); unset is off (the dev start runs a stand-in). */
    CAPTCHA_PROVIDER: z.enum(["turnstile", "hcaptcha", "off"], { error: "CAPTCHA_PROVIDER must be turnstile, hcaptcha or off" }).optional(),
    CAPTCHA_SECRET: z.string().min(1).optional(),
    /** Default: the provider's own siteverify URL. */
    CAPTCHA_VERIFY_URL: url("CAPTCHA_VERIFY_URL", /^https?$/).optional(),
    ...momoSettingsShape,
    ...retentionSettingsShape,
    ...smsSettingsShape,
    ...googleSettingsShape,
  })
  .superRefine((s, ctx) => {
    checkMomoSettings(s, ctx);
    checkSmsSettings(s, ctx);
    checkGoogleSettings(s, ctx);
    if (s.REFRESH_IDLE_SECONDS > s.REFRESH_ABSOLUTE_SECONDS) {
      const message = "REFRESH_IDLE_SECONDS must be at most REFRESH_ABSOLUTE_SECONDS";
      ctx.addIssue({ code: "custom", path: ["REFRESH_IDLE_SECONDS"], message });
    }
    if (s.WEBHOOK_TENANT_CONCURRENCY > s.WEBHOOK_CONCURRENCY) {
      ctx.addIssue({ code: "custom", path: ["WEBHOOK_TENANT_CONCURRENCY"], message: "WEBHOOK_TENANT_CONCURRENCY must be at most WEBHOOK_CONCURRENCY" });
    }
    if ((s.CAPTCHA_PROVIDER === "turnstile" || s.CAPTCHA_PROVIDER === "hcaptcha") && !s.CAPTCHA_SECRET) {
      ctx.addIssue({ code: "custom", path: ["CAPTCHA_SECRET"], message: `CAPTCHA_SECRET is required with CAPTCHA_PROVIDER=${s.CAPTCHA_PROVIDER}` });
    }
    if (s.NODE_ENV === "production" && s.DATABASE_URL && !s.DATA_ENCRYPTION_KEY) {
      ctx.addIssue({ code: "custom", path: ["DATA_ENCRYPTION_KEY"], message: "DATA_ENCRYPTION_KEY is required in production on PostgreSQL" });
    }
  })
  .transform((s) => ({
    ...s,
    HOST: s.HOST ?? listenHost(s.NODE_ENV),
    SHUTDOWN_DRAIN_MS: s.SHUTDOWN_DRAIN_MS ?? drainMs(s.NODE_ENV),
    PASSWORD_BREACH_CHECK: s.PASSWORD_BREACH_CHECK ?? s.NODE_ENV === "production",
  }));

/** Outside production the dev conveniences are on, so by default nothing but this machine can reach them. */
function listenHost(nodeEnv: "development" | "production" | "test"): string {
  return nodeEnv === "production" ? "0.0.0.0" : "127.0.0.1";
}

/** In production a balancer is in front; elsewhere nothing waits for the health checks to notice. */
function drainMs(nodeEnv: "development" | "production" | "test"): number {
  return nodeEnv === "production" ? 5_000 : 0;
}

export type Settings = z.infer<typeof settingsSchema>;

/** Every environment variable the service reads (docs/configuration.md has a row for each). */
export const settingNames: readonly string[] = Object.keys(settingsSchema.in.shape);

export class SettingsError extends Error {}

export function readSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  // Empty strings count as unset, so `FOO= npm start` means "use the default".
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const result = settingsSchema.safeParse(present);
  if (result.success) return result.data;
  const lines = result.error.issues.map((i) => `  ${i.path.join(".") || "settings"}: ${i.message}`);
  throw new SettingsError(`Invalid settings:\n${lines.join("\n")}`);
}
