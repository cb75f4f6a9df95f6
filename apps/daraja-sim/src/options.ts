import type { KeyObject } from "node:crypto";
import type { FastifyServerOptions } from "fastify";
import { simulatorDefaults } from "./defaults.js";
import type { SimScriptBook } from "./scripts.js";

export type QueryPendingMode = "classic" | "4999";

export interface DarajaSimulatorOptions {
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
  /** How many requests/callbacks GET /sim/requests keeps. Default 200. */
  logLimit?: number;
  logger?: FastifyServerOptions["logger"];
  /** Answers scripted by the process that runs the simulator (createSimScripts); none by default. */
  scripts?: SimScriptBook;
  /** C2B: how long the validation URL has to answer before ResponseType decides. Default 8000 (Daraja: "usually < 8 seconds"). */
  c2bValidationTimeoutMs?: number;
  /** C2B register URL versions the app's product has; the other answers 401.003.01. Default both. */
  c2bRegisterVersions?: readonly ("v1" | "v2")[];
}

export interface ResolvedSimulatorOptions {
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
  logLimit: number;
  c2bValidationTimeoutMs: number;
  c2bRegisterVersions: readonly ("v1" | "v2")[];
}

export function resolveOptions(options: DarajaSimulatorOptions): ResolvedSimulatorOptions {
  return {
    consumerKey: options.consumerKey ?? simulatorDefaults.consumerKey,
    consumerSecret: options.consumerSecret ?? simulatorDefaults.consumerSecret,
    shortcode: options.shortcode ?? simulatorDefaults.shortcode,
    passkey: options.passkey ?? simulatorDefaults.passkey,
    tillNumber: options.tillNumber ?? null,
    b2cShortcode: options.b2cShortcode ?? simulatorDefaults.b2cShortcode,
    initiatorName: options.initiatorName ?? simulatorDefaults.initiatorName,
    initiatorPassword: options.initiatorPassword ?? simulatorDefaults.initiatorPassword,
    privateKey: options.privateKey ?? null,
    callbackDelayMs: options.callbackDelayMs ?? simulatorDefaults.callbackDelayMs,
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
    logLimit: options.logLimit ?? 200,
    c2bValidationTimeoutMs: options.c2bValidationTimeoutMs ?? 8000,
    c2bRegisterVersions: options.c2bRegisterVersions ?? ["v1", "v2"],
  };
}
