import type { KeyObject } from "node:crypto";
import { simulationDefaults } from "./defaults.js";

export type QueryPendingMode = "classic" | "4999";

/** Pino-style (Fastify's logger fits): undeliverable callbacks are worth a warning, never an exception. */
export interface SimulationLogger {
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

export interface SimulationOptions {
  consumerKey?: string;
  consumerSecret?: string;
  /** STK BusinessShortCode the simulator accepts. */
  shortcode?: string;
  passkey?: string;
  /** If set, CustomerBuyGoodsOnline requests must name this till as PartyB (else ResultCode 2028). */
  tillNumber?: string;
  /** B2C / Transaction Status PartyA the simulator accepts. */
  b2cShortcode?: string;
  initiatorName?: string;
  initiatorPassword?: string;
  /**
   * RSA private key (PEM or KeyObject). With it, SecurityCredential is decrypted and must equal
   * initiatorPassword (else ResultCode 2001); without it any non-empty base64 is accepted.
   */
  privateKey?: string | KeyObject;
  /** Delay before callbacks are POSTed and prompts settle. Default 1500. */
  callbackDelayMs?: number;
  /** How the STK query answers while the prompt is open. Default 'classic' (HTTP 500 envelope). */
  queryPendingMode?: QueryPendingMode;
  /** Issuing a token invalidates the previous ones, as Daraja does. Default true. */
  strictTokens?: boolean;
  /** Default 3599. */
  tokenLifetimeSeconds?: number;
  /** `expires_in` as the string "3599" (default, what production sends) or as a number (portal sample). */
  expiresInFormat?: "string" | "number";
  /** Reject callback URLs containing Daraja's blocked words (mpesa, safaricom, query, exe, cmd, sql…). Default true. */
  blockCallbackKeywords?: boolean;
  /** Refuse a second prompt to a phone while one is open (`Unable to lock subscriber`). Default false. */
  lockSubscriberWhilePending?: boolean;
  /** If set, reject an STK Timestamp further than this from the simulator's clock (Nairobi time). */
  maxTimestampSkewMinutes?: number;
  now?: () => Date;
  /** For delivering callbacks. Default: global fetch. */
  fetch?: typeof globalThis.fetch;
  callbackTimeoutMs?: number;
  /** C2B: how long the validation URL has to answer before ResponseType decides. Default 8000 ("usually < 8 s"). */
  c2bValidationTimeoutMs?: number;
  /** C2B register URL versions the app's product has; the other answers 401.003.01. Default both. */
  c2bRegisterVersions?: readonly ("v1" | "v2")[];
  /** Pull register's answer keys: "spaced" (`Response Status`, the live sandbox's; default) or "portal". */
  pullRegisterKeys?: "spaced" | "portal";
  /** Pull query paging: "offset" (OffSetValue a row offset; default) or "page" (a page index, with TotalPages). */
  pullPaging?: "offset" | "page";
  /** Rows in one Pull query answer. Default 100. */
  pullPageSize?: number;
}

export interface ResolvedSimulationOptions {
  consumerKey: string;
  consumerSecret: string;
  shortcode: string;
  passkey: string;
  tillNumber: string | null;
  b2cShortcode: string;
  initiatorName: string;
  initiatorPassword: string;
  privateKey: string | KeyObject | null;
  callbackDelayMs: number;
  queryPendingMode: QueryPendingMode;
  strictTokens: boolean;
  tokenLifetimeSeconds: number;
  expiresInFormat: "string" | "number";
  blockCallbackKeywords: boolean;
  lockSubscriberWhilePending: boolean;
  maxTimestampSkewMinutes: number | null;
  now: () => Date;
  fetch: typeof globalThis.fetch;
  callbackTimeoutMs: number;
  c2bValidationTimeoutMs: number;
  c2bRegisterVersions: readonly ("v1" | "v2")[];
  pullRegisterKeys: "spaced" | "portal";
  pullPaging: "offset" | "page";
  pullPageSize: number;
}

export function resolveOptions(options: SimulationOptions): ResolvedSimulationOptions {
  return {
    consumerKey: options.consumerKey ?? simulationDefaults.consumerKey,
    consumerSecret: options.consumerSecret ?? simulationDefaults.consumerSecret,
    shortcode: options.shortcode ?? simulationDefaults.shortcode,
    passkey: options.passkey ?? simulationDefaults.passkey,
    tillNumber: options.tillNumber ?? null,
    b2cShortcode: options.b2cShortcode ?? simulationDefaults.b2cShortcode,
    initiatorName: options.initiatorName ?? simulationDefaults.initiatorName,
    initiatorPassword: options.initiatorPassword ?? simulationDefaults.initiatorPassword,
    privateKey: options.privateKey ?? null,
    callbackDelayMs: options.callbackDelayMs ?? simulationDefaults.callbackDelayMs,
    queryPendingMode: options.queryPendingMode ?? "classic",
    strictTokens: options.strictTokens ?? true,
    tokenLifetimeSeconds: options.tokenLifetimeSeconds ?? 3599,
    expiresInFormat: options.expiresInFormat ?? "string",
    blockCallbackKeywords: options.blockCallbackKeywords ?? true,
    lockSubscriberWhilePending: options.lockSubscriberWhilePending ?? false,
    maxTimestampSkewMinutes: options.maxTimestampSkewMinutes ?? null,
    now: options.now ?? (() => new Date()),
    fetch: options.fetch ?? globalThis.fetch,
    callbackTimeoutMs: options.callbackTimeoutMs ?? 5000,
    c2bValidationTimeoutMs: options.c2bValidationTimeoutMs ?? 8000,
    c2bRegisterVersions: options.c2bRegisterVersions ?? ["v1", "v2"],
    pullRegisterKeys: options.pullRegisterKeys ?? "spaced",
    pullPaging: options.pullPaging ?? "offset",
    pullPageSize: options.pullPageSize ?? 100,
  };
}
