import { z } from "zod";
import { DarajaError, darajaErrorFromResponse, readErrorEnvelope } from "./errors.js";
import { retryWhileNotSent } from "./retry.js";
import type { DarajaTransport } from "./transport.js";

export interface AccessTokenProvider {
  /** A valid bearer token: the cached one, or one fetched now (one fetch shared by all callers). */
  get(): Promise<string>;
  /** Drops `token` from the cache if it is still the cached one (Daraja said it is no longer valid). */
  invalidate(token: string): void;
}

export interface AccessTokenProviderOptions {
  transport: DarajaTransport;
  consumerKey: string;
  consumerSecret: string;
  now: () => Date;
  retryDelaysMs: readonly number[];
  /** Refresh this long before Daraja's stated expiry. */
  refreshMarginMs?: number;
}

const tokenResponseSchema = z.object({
  access_token: z.string().min(1),
  // Portal samples send a number, production sends "3599".
  expires_in: z.union([z.number(), z.string().regex(/^\s*\d+\s*$/)]).transform(Number),
});

interface CachedToken {
  value: string;
  refreshAt: number;
}

export function createAccessTokenProvider(options: AccessTokenProviderOptions): AccessTokenProvider {
  const margin = options.refreshMarginMs ?? 60_000;
  const authorization = `Basic ${Buffer.from(`${options.consumerKey}:${options.consumerSecret}`, "utf8").toString("base64")}`;
  let cached: CachedToken | null = null;
  // Daraja invalidates the previous token whenever it issues one, so concurrent refreshes would
  // knock each other's tokens out: every caller waits on the same request instead.
  let inFlight: Promise<string> | null = null;

  async function fetchToken(): Promise<CachedToken> {
    const response = await options.transport.send({
      method: "GET",
      path: "/oauth/v1/generate",
      headers: { Authorization: authorization },
      searchParams: { grant_type: "client_credentials" },
    });
    if (response.status < 200 || response.status >= 300) {
      if (response.status === 400 && readErrorEnvelope(response.body) === null) {
        // Daraja answers a wrong key/secret with a bare 400.
        throw new DarajaError({
          kind: "provider_error",
          outcome: "refused",
          reason: "invalid_client_credentials",
          httpStatus: 400,
          errorCode: null,
          errorMessage: "Invalid consumer key or secret",
          requestId: null,
        });
      }
      throw darajaErrorFromResponse(response.status, response.body);
    }
    const parsed = tokenResponseSchema.safeParse(response.body);
    if (!parsed.success) {
      throw new DarajaError({
        kind: "provider_error",
        outcome: "unknown",
        reason: "other",
        httpStatus: response.status,
        errorCode: null,
        errorMessage: "OAuth answer without access_token/expires_in",
        requestId: null,
      });
    }
    const lifetimeMs = parsed.data.expires_in * 1000;
    return {
      value: parsed.data.access_token,
      refreshAt: options.now().getTime() + lifetimeMs - Math.min(margin, lifetimeMs / 2),
    };
  }

  return {
    get() {
      if (cached && options.now().getTime() < cached.refreshAt) return Promise.resolve(cached.value);
      if (!inFlight) {
        inFlight = retryWhileNotSent(fetchToken, options.retryDelaysMs)
          .then((token) => {
            cached = token;
            return token.value;
          })
          .finally(() => {
            inFlight = null;
          });
      }
      return inFlight;
    },
    invalidate(token) {
      if (cached?.value === token) cached = null;
    },
  };
}
