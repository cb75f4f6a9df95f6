/**
 * createMtejaClient: the typed client for first-party frontends (browser) and services (Node).
 * Every procedure of the service's `AppRouter` is on `client.api`, typed from the router itself.
 */
import { createTRPCClient, httpBatchLink, httpLink, httpSubscriptionLink, splitLink, type TRPCClient } from "@trpc/client";
import type { AuthState, AuthStateListener } from "./auth-state.js";
import { callHeadersOf } from "./call-options.js";
import type { AppRouter } from "./router-types.js";
import { EventSource as FetchEventSource } from "eventsource";
import { refreshLink } from "./refresh-link.js";
import { createSession, type CookieMode } from "./session.js";
import { stepUpRunner, type ProofPrompt } from "./step-up.js";

/** The most calls the service accepts in one tRPC batch; more calls made together go in several requests. */
export const MAX_BATCH_CALLS = 10;

export interface MtejaClientOptions {
  /** The service's origin, e.g. "https://accounts.example.co.ke" (no trailing path). */
  baseUrl: string;
  /** The shop: sent as X-Tenant-ID on every request. */
  tenantId: string;
  /** A fetch to use instead of the global one (tests, proxies, instrumentation). */
  fetch?: typeof fetch;
  /** Called whenever the access token changes: a new one after login/refresh, null after logout or a failed refresh. */
  onAccessToken?: (token: string | null) => void;
  /** An access token to start with (e.g. handed over from a server render). */
  accessToken?: string | null;
  /**
   * Who keeps the HttpOnly refresh cookie: "browser" (its cookie jar; requests use credentials: "include")
   * or "memory" (this client reads it from Set-Cookie and sends it to /api/v1/auth/*). Defaults to
   * "browser" where there is a `document`, "memory" elsewhere (Node has no cookie jar).
   */
  cookies?: CookieMode;
  /** Refresh before a call when the access token expires within this many seconds (default 60; at most a quarter of the token's lifetime). */
  refreshMarginSeconds?: number;
  /** The time in milliseconds, for the refresh-ahead check (default Date.now). */
  now?: () => number;
}

export interface MtejaClient {
  /** Every query, mutation and subscription of the service, e.g. `api.auth.login.mutate({ email, password })`. */
  api: TRPCClient<AppRouter>;
  getAccessToken(): string | null;
  setAccessToken(token: string | null): void;
  /** Gets a new access token from the refresh cookie now (calls do it by themselves when theirs expired). */
  refresh(): Promise<string>;
  /** Ends the session on the server, clears the refresh cookie and forgets the access token. */
  logout(): Promise<void>;
  /** The signed-in user's id and the token's expiry (read from the access token); null when signed out. */
  getAuthState(): AuthState | null;
  /**
   * Calls `listener(event, state)` on every change of sign-in state: SIGNED_IN (register, login,
   * otp.validate, or a refresh that starts a session), TOKEN_REFRESHED, SIGNED_OUT (logout, or a refresh
   * refused because the session is over). Returns the function that stops it.
   */
  onAuthStateChange(listener: AuthStateListener): () => void;
  /**
   * Runs `call`; when the service answers 403 STEP_UP_REQUIRED (a sensitive change on a session that is
   * no longer fresh: docs/step-up.md), asks `askProof()` for the user's password or SMS code (and
   * two-factor code), reauthenticates with it and runs `call` once more. `askProof` resolving to null
   * gives up: the call fails with STEP_UP_REQUIRED.
   */
  withStepUp<T>(call: () => Promise<T>, askProof: ProofPrompt): Promise<T>;
}

export function createMtejaClient(options: MtejaClientOptions): MtejaClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const session = createSession({
    baseUrl,
    tenantId: options.tenantId,
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    cookies: options.cookies ?? ("document" in globalThis ? "browser" : "memory"),
    accessToken: options.accessToken ?? null,
    ...(options.onAccessToken ? { onAccessToken: options.onAccessToken } : {}),
  });

  const headers = (): Record<string, string> => {
    const token = session.getAccessToken();
    return { "x-tenant-id": options.tenantId, ...(token ? { authorization: `Bearer ${token}` } : {}) };
  };
  const url = `${baseUrl}/trpc`;

  const api = createTRPCClient<AppRouter>({
    links: [
      refreshLink<AppRouter>(session, { marginSeconds: options.refreshMarginSeconds ?? 60, now: options.now ?? Date.now }),
      splitLink({
        condition: (op) => op.type === "subscription",
        // The fetch-based EventSource can send headers (the bearer token never goes in a URL),
        // in browsers and in Node alike; it reads the token again on every reconnect.
        true: httpSubscriptionLink({
          url,
          EventSource: FetchEventSource,
          eventSourceOptions: () => ({
            fetch: (input, init) => session.fetch(input, { ...init, headers: { ...init.headers, ...headers() } }),
          }),
        }),
        false: splitLink({
          // An Idempotency-Key or a CAPTCHA token is a header, so a call with one travels alone (a batch shares its headers).
          condition: (op) => callHeadersOf(op.context) !== undefined,
          true: httpLink({
            url,
            fetch: session.fetch,
            headers: ({ op }) => ({ ...headers(), ...callHeadersOf(op.context) }),
          }),
          false: httpBatchLink({ url, headers, fetch: session.fetch, maxItems: MAX_BATCH_CALLS }),
        }),
      }),
    ],
  });

  return {
    api,
    getAccessToken: session.getAccessToken,
    setAccessToken: session.setAccessToken,
    refresh: session.refresh,
    logout: session.logout,
    getAuthState: session.getAuthState,
    onAuthStateChange: session.onAuthStateChange,
    withStepUp: stepUpRunner(api),
  };
}
