/**
 * Sign in with Google in tests: the Google simulator (apps/google-sim, a real OpenID provider on
 * 127.0.0.1:0), a shop whose Google client is the simulator's, and a browser's trip through the
 * redirect flow made by hand (each redirect followed, the cookies of each origin kept) so a test can
 * also break it: drop the cookie, change the state.
 */
import { buildGoogleSimulator, type GoogleSimulator } from "@mteja/google-sim";
import { expect } from "vitest";
import { adminKey, RestClient, type TestApp } from "./app.js";
import { newShop } from "./shops.js";

export const callbackPath = "/api/v1/auth/oidc/google/callback";
export const demoPage = "https://shop.example/account";

/** The app's env pointing at a simulator started before the app (OIDC_GOOGLE_ISSUER is read at start). */
export async function startSimulatorFirst(): Promise<GoogleSimulator> {
  const sim = buildGoogleSimulator();
  await sim.listen({ host: "127.0.0.1", port: 0 });
  return sim;
}

/** A shop using the simulator's client for the app (the simulator started first, its issuer the app's). */
export async function googleShopOn(t: TestApp, sim: GoogleSimulator, settings: Record<string, unknown> = {}): Promise<{ tenantId: string; clientId: string }> {
  const clientId = `shop-${Math.random().toString(36).slice(2)}.apps.googleusercontent.test`;
  const clientSecret = "google-client-secret";
  await sim.addClient({ clientId, clientSecret, redirectUris: [`${t.url}${callbackPath}`] });
  const tenantId = await newShop(t, { oidc: { google: { clientId, clientSecret, redirectUris: [demoPage] } }, ...settings });
  return { tenantId, clientId };
}

/** Cookies by origin, as a browser keeps them (names and values only: enough for these flows). */
export class CookieJar {
  private readonly byOrigin = new Map<string, Map<string, string>>();

  header(url: string): string {
    const jar = this.byOrigin.get(new URL(url).origin);
    return jar ? [...jar].map(([name, value]) => `${name}=${value}`).join("; ") : "";
  }

  keep(url: string, response: Response): void {
    const origin = new URL(url).origin;
    const jar = this.byOrigin.get(origin) ?? new Map<string, string>();
    this.byOrigin.set(origin, jar);
    for (const line of response.headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const [name = "", ...value] = pair.split("=");
      const expired = /max-age=0|expires=thu, 01 jan 1970/i.test(line);
      if (expired || value.join("=") === "") jar.delete(name.trim());
      else jar.set(name.trim(), value.join("="));
    }
  }

  get(url: string, name: string): string | undefined {
    return this.byOrigin.get(new URL(url).origin)?.get(name);
  }

  set(url: string, name: string, value: string | undefined): void {
    const origin = new URL(url).origin;
    const jar = this.byOrigin.get(origin) ?? new Map<string, string>();
    this.byOrigin.set(origin, jar);
    if (value === undefined) jar.delete(name);
    else jar.set(name, value);
  }
}

/** A browser: requests without following redirects, cookies kept per origin. */
export class Browser {
  readonly jar = new CookieJar();

  async go(url: string, init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {}): Promise<Response> {
    const headers: Record<string, string> = { ...init.headers };
    const cookie = this.jar.header(url);
    if (cookie) headers.cookie = cookie;
    let body: string | undefined;
    if (init.form) {
      headers["content-type"] = "application/x-www-form-urlencoded";
      body = new URLSearchParams(init.form).toString();
    }
    const response = await fetch(url, { method: init.method ?? (body ? "POST" : "GET"), headers, body, redirect: "manual" });
    this.jar.keep(url, response);
    return response;
  }
}

/** The redirect flow's start as the app links to it: the shop, the page to come back to, a guest to take over. */
export function startUrl(
  t: TestApp,
  shop: { tenantId: string },
  options: { redirectUri?: string; guestToken?: string } = {},
): string {
  const query = new URLSearchParams({ tenant: shop.tenantId, redirect_uri: options.redirectUri ?? demoPage });
  if (options.guestToken !== undefined) query.set("guest_token", options.guestToken);
  return `${t.url}/api/v1/auth/oidc/google/start?${query}`;
}

export interface GoogleTrip {
  browser: Browser;
  /** The simulator's redirect back to the service's callback, not yet followed. */
  callbackUrl: string;
}

/** Start, then Google's sign-in page as the person would use it; stops before the callback. */
export async function throughGoogle(
  t: TestApp,
  shop: { tenantId: string },
  person: { email: string; verified?: boolean },
  options: { browser?: Browser; redirectUri?: string; guestToken?: string } = {},
): Promise<GoogleTrip> {
  const browser = options.browser ?? new Browser();
  const start = await browser.go(startUrl(t, shop, options));
  expect(start.status, await start.clone().text()).toBe(302);
  let location = start.headers.get("location")!;
  let response = await browser.go(location);
  // The provider's own redirects, to its sign-in page.
  while (response.status >= 300 && response.status < 400 && !response.headers.get("location")!.includes("/interaction/")) {
    location = new URL(response.headers.get("location")!, location).href;
    response = await browser.go(location);
  }
  const page = new URL(response.headers.get("location")!, location).href;
  expect((await browser.go(page)).status).toBe(200);
  response = await browser.go(`${page}/login`, { form: { email: person.email, ...(person.verified === false ? {} : { verified: "1" }) } });
  location = page;
  while (!response.headers.get("location")!.startsWith(`${t.url}${callbackPath}`)) {
    location = new URL(response.headers.get("location")!, location).href;
    response = await browser.go(location);
    expect(response.status).toBeGreaterThanOrEqual(300);
  }
  return { browser, callbackUrl: response.headers.get("location")! };
}

/** The whole redirect flow: where the service sends the browser back, and the refresh cookie it set. */
export async function signInWithGoogle(t: TestApp, shop: { tenantId: string }, person: { email: string; verified?: boolean }) {
  const trip = await throughGoogle(t, shop, person);
  return finishAtCallback(t, trip);
}

export async function finishAtCallback(t: TestApp, trip: GoogleTrip, callbackUrl = trip.callbackUrl) {
  const back = await trip.browser.go(callbackUrl);
  return { status: back.status, location: back.headers.get("location"), refreshCookie: trip.browser.jar.get(t.url, "refresh_token"), response: back };
}

/** An access token from the refresh cookie the callback set, as the app does on its page. */
export async function accessTokenFrom(t: TestApp, tenantId: string, refreshCookie: string): Promise<string> {
  const client = new RestClient(t.url, tenantId);
  client.cookie = refreshCookie;
  const refreshed = await client.post("/api/v1/auth/refresh");
  expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
  return refreshed.body.data.access_token as string;
}

/** A nonce from the service, and an ID token from the simulator carrying it (One Tap, as the app gets it). */
export async function idTokenWithNonce(t: TestApp, sim: GoogleSimulator, shop: { tenantId: string; clientId: string }, person: { email: string; verified?: boolean }) {
  const nonce = await new RestClient(t.url, shop.tenantId).post("/api/v1/auth/oidc/google/nonce", {});
  expect(nonce.status, JSON.stringify(nonce.body)).toBe(200);
  return sim.mintIdToken({ audience: shop.clientId, email: person.email, emailVerified: person.verified ?? true, nonce: nonce.body.data.nonce });
}

export { adminKey };
