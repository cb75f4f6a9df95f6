/**
 * `mteja doctor`: checks what a start needs — the settings, the database and its migrations, the data
 * key against the stored signing key, Redis, SMTP and Daraja's OAuth — and says what is wrong in words;
 * it also warns of shops whose C2B still accepts the old shared callback secret.
 */
import { openDatabase, signingKeys, type Database } from "@mteja/db";
import { createDataCipher, cryptoRandom, shopsOnSharedC2bToken } from "@mteja/domain";
import { checkSmtpServer } from "@mteja/mailer";
import { Redis } from "ioredis";
import { databaseOptionsOf } from "../runtime/database-options.js";
import { productionWarnings } from "../runtime/production-warnings.js";
import { resolveDataEncryptionKey } from "../runtime/secrets.js";
import { readSettings, SettingsError, type Settings } from "../settings.js";

export interface Finding {
  check: string;
  status: "ok" | "warn" | "fail" | "skip";
  message: string;
}

type Check = { check: string; run: (settings: Settings, db: () => Promise<Database>) => Promise<Omit<Finding, "check">> };

const ok = (message: string) => ({ status: "ok" as const, message });
const warn = (message: string) => ({ status: "warn" as const, message });
const fail = (message: string) => ({ status: "fail" as const, message });
const skip = (message: string) => ({ status: "skip" as const, message });

const reason = (error: unknown) => (error instanceof Error ? error.message : String(error)).split("\n")[0]!;

const checks: Check[] = [
  {
    check: "database",
    async run(settings, db) {
      const where = settings.DATABASE_URL ? "PostgreSQL at DATABASE_URL" : `the embedded database in DATA_DIR (${settings.DATA_DIR})`;
      let database: Database;
      try {
        database = await db();
        await database.ping();
      } catch (error) {
        return fail(`cannot reach ${where}: ${reason(error)}`);
      }
      const pending = await database.pendingMigrations();
      if (pending.length) return fail(`${pending.length} migration(s) not applied yet (${pending.join(", ")}): run \`mteja migrate\``);
      return ok(`${where} answers; every migration is applied`);
    },
  },
  {
    check: "data encryption key",
    async run(settings, db) {
      if (!settings.DATA_ENCRYPTION_KEY) return skip("DATA_ENCRYPTION_KEY is unset: the key in DATA_DIR/secrets.json is used (or made at the first start)");
      let database: Database;
      try {
        database = await db();
      } catch {
        return skip("the database cannot be reached");
      }
      const stored = await signingKeys.findCurrent(database.unscoped("operator-cli")).catch(() => null);
      if (!stored) return ok("no stored signing key yet: the first start makes one with this key");
      const cipher = createDataCipher(await resolveDataEncryptionKey(settings.DATA_ENCRYPTION_KEY, settings.DATA_DIR), cryptoRandom);
      try {
        cipher.decrypt(stored.privateKeyEnc);
        return ok("DATA_ENCRYPTION_KEY opens the stored signing key");
      } catch {
        return fail("DATA_ENCRYPTION_KEY cannot decrypt the stored signing key: it is not the key this database was written with (every instance must share one)");
      }
    },
  },
  {
    check: "c2b callback tokens",
    async run(settings, db) {
      if (!settings.MOMO_CALLBACK_SECRET) return skip("MOMO_CALLBACK_SECRET is unset: no M-Pesa callback is accepted");
      let database: Database;
      try {
        database = await db();
      } catch {
        return skip("the database cannot be reached");
      }
      if ((await database.pendingMigrations()).length) return skip("migrations are not applied yet");
      const shops = await shopsOnSharedC2bToken(database.unscoped("operator-cli"), { defaultTenantId: settings.DEFAULT_TENANT_ID, platformShortcode: settings.MOMO_SHORTCODE ?? null });
      if (shops.length === 0) return ok("every shop with a C2B short code accepts only its own token");
      // A warning, not a failure: the service works, but a leaked URL of before the upgrade can still fake these shops' C2B.
      return warn(
        `${shops.length} shop(s) still accept MOMO_CALLBACK_SECRET itself on their C2B URLs (${shops.join(", ")}): register their C2B URLs again (POST /api/v1/admin/tenants/:id/c2b/register) so that only their own token is accepted`,
      );
    },
  },
  {
    check: "redis",
    async run(settings) {
      if (!settings.REDIS_URL) return skip("REDIS_URL is unset: abuse limits are counted in each instance's memory");
      const redis = new Redis(settings.REDIS_URL, { lazyConnect: true, connectTimeout: 3_000, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false });
      redis.on("error", () => undefined);
      try {
        await redis.connect();
        await redis.ping();
        return ok("REDIS_URL answers");
      } catch (error) {
        return fail(`cannot reach Redis at REDIS_URL: ${reason(error)}`);
      } finally {
        redis.disconnect();
      }
    },
  },
  {
    check: "smtp",
    async run(settings) {
      if (!settings.SMTP_URL) return skip("SMTP_URL is unset: mails are only logged, never sent");
      const problem = await checkSmtpServer(settings.SMTP_URL);
      return problem ? fail(`SMTP_URL: ${problem}`) : ok("SMTP_URL's server accepts a sign-in");
    },
  },
  {
    check: "daraja",
    async run(settings) {
      if (!settings.MOMO_BASE_URL) return skip("MOMO_BASE_URL is unset: M-Pesa is off");
      if (!settings.MOMO_CONSUMER_KEY || !settings.MOMO_CONSUMER_SECRET) return fail("MOMO_CONSUMER_KEY and MOMO_CONSUMER_SECRET are required with MOMO_BASE_URL");
      const url = new URL("/oauth/v1/generate?grant_type=client_credentials", settings.MOMO_BASE_URL);
      const basic = Buffer.from(`${settings.MOMO_CONSUMER_KEY}:${settings.MOMO_CONSUMER_SECRET}`).toString("base64");
      try {
        const res = await fetch(url, { headers: { authorization: `Basic ${basic}` }, signal: AbortSignal.timeout(10_000) });
        if (res.ok) return ok(`Daraja at ${url.origin} gives an access token for MOMO_CONSUMER_KEY`);
        if (res.status === 400 || res.status === 401) return fail(`Daraja at ${url.origin} refused MOMO_CONSUMER_KEY/MOMO_CONSUMER_SECRET (HTTP ${res.status}): check them on the Daraja portal`);
        return fail(`Daraja at ${url.origin} answered HTTP ${res.status} to the OAuth request`);
      } catch (error) {
        return fail(`cannot reach Daraja at MOMO_BASE_URL (${url.origin}): ${reason(error)}`);
      }
    },
  },
];

/** Every finding, in order; the settings' problems alone when they cannot be read. */
export async function runDoctor(env: NodeJS.ProcessEnv): Promise<Finding[]> {
  let settings: Settings;
  try {
    settings = readSettings(env);
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    return error.message
      .split("\n")
      .slice(1)
      .map((line) => ({ check: "settings", status: "fail", message: line.trim() }));
  }
  const findings: Finding[] = [{ check: "settings", status: "ok", message: "every setting is valid" }];
  for (const warning of productionWarnings(settings)) findings.push({ check: "settings", status: "warn", message: `unsafe in production: ${warning.message}` });

  let opened: Promise<Database> | undefined;
  const db = () => (opened ??= openDatabase(databaseOptionsOf(settings, 2)));
  try {
    for (const { check, run } of checks) findings.push({ check, ...(await run(settings, db).catch((error: unknown) => fail(reason(error)))) });
  } finally {
    if (opened) await opened.then((database) => database.close()).catch(() => undefined);
  }
  return findings;
}
