import { simulatorDefaults } from "./defaults.js";
import type { DarajaSimulatorOptions } from "./options.js";

export interface SimulatorSettings {
  port: number;
  host: string;
  options: DarajaSimulatorOptions;
  /** When set, main loads/creates the RSA key (see createSimulatorKeyFiles). */
  privateKeyPath: string | null;
  publicKeyPath: string | null;
}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new Error(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
  return value;
}

function flag(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (/^(true|1|on|yes)$/i.test(raw)) return true;
  if (/^(false|0|off|no)$/i.test(raw)) return false;
  throw new Error(`${name} must be true or false (got "${raw}")`);
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!(allowed as readonly string[]).includes(raw)) throw new Error(`${name} must be one of ${allowed.join(", ")} (got "${raw}")`);
  return raw as T;
}

const textOr = (env: Env, name: string, fallback: string) => (env[name] === undefined || env[name] === "" ? fallback : (env[name] as string));

/** Reads SIM_* settings; a bad value throws an Error naming the setting. */
export function simulatorSettingsFromEnv(env: Env): SimulatorSettings {
  const options: DarajaSimulatorOptions = {
    consumerKey: textOr(env, "SIM_CONSUMER_KEY", simulatorDefaults.consumerKey),
    consumerSecret: textOr(env, "SIM_CONSUMER_SECRET", simulatorDefaults.consumerSecret),
    shortcode: textOr(env, "SIM_SHORTCODE", simulatorDefaults.shortcode),
    passkey: textOr(env, "SIM_PASSKEY", simulatorDefaults.passkey),
    b2cShortcode: textOr(env, "SIM_B2C_SHORTCODE", simulatorDefaults.b2cShortcode),
    initiatorName: textOr(env, "SIM_INITIATOR_NAME", simulatorDefaults.initiatorName),
    initiatorPassword: textOr(env, "SIM_INITIATOR_PASSWORD", simulatorDefaults.initiatorPassword),
    callbackDelayMs: integer(env, "SIM_CALLBACK_DELAY_MS", simulatorDefaults.callbackDelayMs, 0, 600_000),
    queryPendingMode: oneOf(env, "SIM_QUERY_PENDING_MODE", ["classic", "4999"] as const, "classic"),
    strictTokens: flag(env, "SIM_STRICT_TOKENS", true),
    blockCallbackKeywords: flag(env, "SIM_BLOCK_CALLBACK_KEYWORDS", true),
    lockSubscriberWhilePending: flag(env, "SIM_LOCK_SUBSCRIBER", false),
    pullPaging: oneOf(env, "SIM_PULL_PAGING", ["offset", "page"] as const, "offset"),
    pullRegisterKeys: oneOf(env, "SIM_PULL_REGISTER_KEYS", ["spaced", "portal"] as const, "spaced"),
    logger: { level: textOr(env, "LOG_LEVEL", "info") },
  };
  if (env["SIM_TILL_NUMBER"]) options.tillNumber = env["SIM_TILL_NUMBER"];
  return {
    port: integer(env, "SIM_PORT", simulatorDefaults.port, 0, 65_535),
    host: textOr(env, "SIM_HOST", simulatorDefaults.host),
    options,
    privateKeyPath: env["SIM_PRIVATE_KEY_PATH"] || null,
    publicKeyPath: env["SIM_PUBLIC_KEY_PATH"] || null,
  };
}
