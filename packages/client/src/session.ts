/**
 * The client's session state: the access token (memory only), the refresh cookie when no browser
 * keeps it, and the one refresh in flight that concurrent calls share.
 */
import { authStateEvent, authStateOf, type AuthState, type AuthStateListener } from "./auth-state.js";
import { refreshFailure } from "./errors.js";

export type CookieMode = "browser" | "memory";

export interface SessionOptions {
  baseUrl: string;
  tenantId: string;
  fetch: typeof fetch;
  cookies: CookieMode;
  accessToken?: string | null;
  onAccessToken?: (token: string | null) => void;
}

export interface Session {
  getAccessToken(): string | null;
  setAccessToken(token: string | null): void;
  /** The signed-in user and the token's expiry, read from the access token; null when signed out. */
  getAuthState(): AuthState | null;
  /** Calls `listener` on every sign-in, refresh and sign-out; returns the function that stops it. */
  onAuthStateChange(listener: AuthStateListener): () => void;
  /** Exchanges the refresh cookie for a new access token; concurrent callers share one request. */
  refresh(): Promise<string>;
  /** Ends the session on the server (REST, so the cookie goes with it) and forgets the token. */
  logout(): Promise<void>;
  /** fetch for every request to the API: carries and keeps the refresh cookie in memory mode. */
  fetch: typeof fetch;
}

const refreshCookieName = "refresh_token";
/** The refresh cookie's Path: a browser sends it only to these URLs, so the memory jar does too. */
const cookiePath = "/api/v1/auth/";

export function createSession(options: SessionOptions): Session {
  const { baseUrl, tenantId, fetch: baseFetch } = options;
  let accessToken: string | null = options.accessToken ?? null;
  let authState = authStateOf(accessToken);
  let refreshCookie: string | null = null;
  let refreshing: Promise<string> | null = null;
  const listeners = new Set<AuthStateListener>();

  const setAccessToken = (token: string | null) => {
    if (token === accessToken) return;
    accessToken = token;
    const before = authState;
    authState = authStateOf(token);
    options.onAccessToken?.(token);
    const event = authStateEvent(before, authState);
    if (event) for (const listener of [...listeners]) listener(event, authState);
  };

  const keepRefreshCookie = (response: Response) => {
    if (options.cookies !== "memory") return;
    for (const line of response.headers.getSetCookie?.() ?? []) {
      const [pair = "", ...attributes] = line.split(";");
      const separator = pair.indexOf("=");
      if (pair.slice(0, separator).trim() !== refreshCookieName) continue;
      const value = pair.slice(separator + 1).trim();
      const expired = attributes.some((a) => /^\s*max-age\s*=\s*0\s*$/i.test(a) || (/^\s*expires\s*=/i.test(a) && Date.parse(a.split("=")[1] ?? "") <= Date.now()));
      refreshCookie = value && !expired ? value : null;
    }
  };

  const apiFetch: typeof fetch = async (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    let request = init ?? {};
    if (options.cookies === "memory" && refreshCookie && new URL(url).pathname.startsWith(cookiePath)) {
      const headers = new Headers(request.headers);
      headers.set("cookie", `${refreshCookieName}=${refreshCookie}`);
      request = { ...request, headers };
    } else if (options.cookies === "browser") {
      // Cross-origin frontends need it for the refresh cookie to be set and sent.
      request = { ...request, credentials: "include" };
    }
    // Called detached: window.fetch throws "Illegal invocation" when called as a method of another object.
    const response = await baseFetch(input, request);
    keepRefreshCookie(response);
    return response;
  };

  const authPost = (path: string) =>
    apiFetch(`${baseUrl}${path}`, { method: "POST", headers: { "x-tenant-id": tenantId } });

  const refreshOnce = async (): Promise<string> => {
    let response: Response;
    try {
      response = await authPost("/api/v1/auth/refresh");
    } catch (error) {
      throw refreshFailure(0, undefined, error);
    }
    const body = (await response.json().catch(() => undefined)) as
      | { success?: boolean; message?: string; data?: { access_token?: unknown }; error?: { code?: string } }
      | undefined;
    const token = body?.data?.access_token;
    if (!response.ok || typeof token !== "string") {
      // 401 means the session is over (no, expired, revoked or reused cookie): forget it.
      if (response.status === 401) {
        setAccessToken(null);
        refreshCookie = null;
      }
      throw refreshFailure(response.status, body, undefined, response.headers.get("retry-after"));
    }
    setAccessToken(token);
    return token;
  };

  return {
    getAccessToken: () => accessToken,
    setAccessToken,
    getAuthState: () => authState,
    onAuthStateChange(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    refresh() {
      refreshing ??= refreshOnce().finally(() => {
        refreshing = null;
      });
      return refreshing;
    },
    async logout() {
      try {
        await authPost("/api/v1/auth/logout");
      } finally {
        setAccessToken(null);
        refreshCookie = null;
      }
    },
    fetch: apiFetch,
  };
}
