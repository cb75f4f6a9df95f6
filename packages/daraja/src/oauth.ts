import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { DarajaError, darajaErrorFromResponse, readErrorEnvelope } from "./errors.js";
import { retryWhileNotSent } from "./retry.js";
import type { DarajaTransport } from "./transport.js";

export interface AccessTokenProvider {
  /** A valid bearer token: the cached one, or one fetched now (one fetch shared by all callers). */
  get(): Promise<string>;
  /** Drops `token` from the cache if it is still the cached one (Daraja said it is no longer valid). */
  invalidate(token: string): Promise<void>;
}

/**
 * Where the processes of one deployment share each Daraja app's access token: Daraja invalidates the
 * previous token whenever it issues one, so processes keeping their own would refuse each other's.
 * `account` is a hash of the base URL and consumer key (never a secret). Any method may throw (the
 * store is unreachable): the client then keeps its token in its own memory.
 */
export interface AccessTokenStore {
  /** The shared token of `account`, or null. */
  read(account: string): Promise<string | null>;
  /** Shares `token` for `ttlMs`. */
  write(account: string, token: string, ttlMs: number): Promise<void>;
  /** Removes the shared token only if it is still `token`: another process may already have replaced it. */
  discard(account: string, token: string): Promise<void>;
  /** The right to ask Daraja for a new token, for at most `ttlMs`: its release, or null while another holds it. */
  lock(account: string, ttlMs: number): Promise<(() => Promise<void>) | null>;
}

/** Names an app in an AccessTokenStore: its base URL and consumer key, hashed. */
export function accessTokenAccount(baseUrl: string, consumerKey: string): string {
  return createHash("sha256").update(`${baseUrl.replace(/\/+$/, "")}\n${consumerKey}`, "utf8").digest("hex").slice(0, 32);
}

export interface SharedAccessTokens {
  store: AccessTokenStore;
  /** accessTokenAccount(baseUrl, consumerKey). */
  account: string;
  /** How long one process may take to fetch a token (its lock's life, and how long the others wait for it). */
  lockMs: number;
  /** Between two looks at the store while another process fetches. Default 50. */
  pollMs?: number;
  /** The store failed (once per outage): the token is kept in this process's memory meanwhile. */
  onStoreError(error: unknown): void;
}

export interface AccessTokenProviderOptions {
  transport: DarajaTransport;
  consumerKey: string;
  consumerSecret: string;
  now: () => Date;
  retryDelaysMs: readonly number[];
  /** Refresh this long before Daraja's stated expiry. */
  refreshMarginMs?: number;
  /** The store the processes share the token through; without it, this provider's memory. */
  shared?: SharedAccessTokens | undefined;
}

const tokenResponseSchema = z.object({
  access_token: z.string().min(1),
  // Portal samples send a number, production sends "3599".
  expires_in: z.union([z.number(), z.string().regex(/^\s*\d+\s*$/)]).transform(Number),
});

interface CachedToken {
  value: string;
  refreshAt: number;
  /** How long it is used from when it was issued. */
  usableMs: number;
}

/** A store failure, as opposed to Daraja's answer. */
class StoreFailure extends Error {
  constructor(readonly error: unknown) {
    super("access token store failed");
  }
}

const storeStep = <T>(step: () => Promise<T>): Promise<T> =>
  step().catch((error: unknown) => {
    throw new StoreFailure(error);
  });

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
    const usableMs = lifetimeMs - Math.min(margin, lifetimeMs / 2);
    return { value: parsed.data.access_token, refreshAt: options.now().getTime() + usableMs, usableMs };
  }

  const fetchAndCache = () =>
    retryWhileNotSent(fetchToken, options.retryDelaysMs).then((token) => {
      cached = token;
      return token;
    });

  function localGet(): Promise<string> {
    if (cached && options.now().getTime() < cached.refreshAt) return Promise.resolve(cached.value);
    if (!inFlight) {
      inFlight = fetchAndCache()
        .then((token) => token.value)
        .finally(() => {
          inFlight = null;
        });
    }
    return inFlight;
  }

  const local: AccessTokenProvider = {
    get: localGet,
    invalidate(token) {
      if (cached?.value === token) cached = null;
      return Promise.resolve();
    },
  };
  return options.shared ? sharedProvider(options.shared, local, fetchAndCache) : local;
}

/**
 * The token every process of the deployment uses: read from the store on each request (another
 * process may have replaced it); when there is none, one process fetches it under the store's lock
 * while the others look again every pollMs. While the store fails, `local` serves.
 */
function sharedProvider(
  shared: SharedAccessTokens,
  local: AccessTokenProvider,
  fetchAndCache: () => Promise<CachedToken>,
): AccessTokenProvider {
  const { store, account, lockMs } = shared;
  const pollMs = shared.pollMs ?? 50;
  // Callers at the same time share one look at the store; one that started before an invalidation
  // may bring back the refused token, so later callers do not join it.
  let inFlight: { generation: number; token: Promise<string> } | null = null;
  let generation = 0;
  let failing = false;
  const failed = (error: unknown) => {
    if (failing) return;
    failing = true;
    shared.onStoreError(error);
  };

  async function fetchAndShare(): Promise<string> {
    const token = await fetchAndCache();
    // The token was issued: if it cannot be shared, it still serves this process.
    await store.write(account, token.value, token.usableMs).catch(failed);
    return token.value;
  }

  async function fromStore(): Promise<string> {
    // Real time, as the store's expiries are.
    const deadline = Date.now() + lockMs;
    for (;;) {
      const token = await storeStep(() => store.read(account));
      failing = false;
      if (token) return token;
      const release = await storeStep(() => store.lock(account, lockMs));
      if (release) {
        try {
          // Another process may have shared one between the read and the lock.
          return (await storeStep(() => store.read(account))) ?? (await fetchAndShare());
        } finally {
          await release().catch(failed);
        }
      }
      // The process holding the lock is gone or still waiting on Daraja: fetch without it.
      if (Date.now() >= deadline) return fetchAndShare();
      await sleep(pollMs);
    }
  }

  return {
    get() {
      if (!inFlight || inFlight.generation !== generation) {
        const current = {
          generation,
          token: fromStore().catch((error: unknown) => {
            if (!(error instanceof StoreFailure)) throw error;
            failed(error.error);
            return local.get();
          }),
        };
        inFlight = current;
        void current.token
          .finally(() => {
            if (inFlight === current) inFlight = null;
          })
          .catch(() => undefined);
      }
      return inFlight.token;
    },
    async invalidate(token) {
      generation += 1;
      await local.invalidate(token);
      await store.discard(account, token).catch(failed);
    },
  };
}

