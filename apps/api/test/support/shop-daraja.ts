/**
 * Support for the per-shop M-Pesa tests: the service on the Daraja simulator with a platform account
 * the simulator does NOT know (short codes 600000 / 600001), so a shop paying through its own account
 * (the simulator's: 174379 / 600992) succeeds, and any fall-back to the platform's shows in what it received.
 */
import { randomBytes } from "node:crypto";
import { adminKey, registerUser, RestClient, startTestApp, type HttpResult, type TestApp } from "./app.js";
import type { TestDatabase } from "./database.js";
import { callbackSecret } from "./daraja.js";
import { B2C_SHORTCODE, CONSUMER_KEY, CONSUMER_SECRET, INITIATOR_NAME, PASSKEY, SHORTCODE } from "./simulator.js";

export const PLATFORM = { shortcode: "600000", passkey: "platform-passkey", b2cShortcode: "600001", initiatorName: "platform-initiator" };

/** A shop's own complete credentials: the simulator's account. */
export const OWN_STK = { shortcode: SHORTCODE, consumerKey: CONSUMER_KEY, consumerSecret: CONSUMER_SECRET, passkey: PASSKEY };
export const OWN_B2C = { b2cShortcode: B2C_SHORTCODE, initiatorName: INITIATOR_NAME, securityCredential: "c2hvcC1pbml0aWF0b3ItY3JlZGVudGlhbA==" };

const callbacks = "http://127.0.0.1:9/api/momo/callback";

export function platformEnv(darajaUrl: string, dataKey = randomBytes(32).toString("hex")): Record<string, string> {
  return {
    DATA_ENCRYPTION_KEY: dataKey,
    MOMO_BASE_URL: darajaUrl,
    MOMO_CONSUMER_KEY: CONSUMER_KEY,
    MOMO_CONSUMER_SECRET: CONSUMER_SECRET,
    MOMO_SHORTCODE: PLATFORM.shortcode,
    MOMO_PASSKEY: PLATFORM.passkey,
    MOMO_CALLBACK_URL: `${callbacks}/stkpush`,
    MOMO_CALLBACK_SECRET: callbackSecret,
    MOMO_B2C_SHORTCODE: PLATFORM.b2cShortcode,
    MOMO_INITIATOR_NAME: PLATFORM.initiatorName,
    MOMO_SECURITY_CREDENTIAL: "cGxhdGZvcm0tY3JlZGVudGlhbA==",
    MOMO_B2C_RESULT_URL: `${callbacks}/b2c/result`,
    MOMO_B2C_TIMEOUT_URL: `${callbacks}/b2c/timeout`,
    MOMO_RECONCILE_INTERVAL_MS: "0",
    MOMO_TIMEOUT_MS: "2000",
  };
}

export function startShopApp(darajaUrl: string, options: { now?: () => Date; database?: TestDatabase; dataKey?: string } = {}): Promise<TestApp> {
  return startTestApp(platformEnv(darajaUrl, options.dataKey), {
    ...(options.now ? { now: options.now } : {}),
    ...(options.database ? { database: options.database } : {}),
  });
}

/** A request to the admin API (ADMIN_API_KEY). */
export function adminApi(t: TestApp, method: string, path: string, body?: unknown): Promise<HttpResult> {
  return new RestClient(t.url, "").request(method, path, { ...(body !== undefined ? { body } : {}), headers: { authorization: `Bearer ${adminKey}` } });
}

export async function createShop(t: TestApp, id: string, settings?: unknown): Promise<void> {
  const created = await adminApi(t, "POST", "/api/v1/admin/tenants", { id, name: id, ...(settings !== undefined ? { settings } : {}) });
  if (created.status !== 200) throw new Error(`create tenant failed: ${created.status} ${JSON.stringify(created.body)}`);
}

export async function shopCustomer(t: TestApp, tenantId: string) {
  return registerUser(new RestClient(t.url, tenantId));
}

export async function shopAdmin(t: TestApp, tenantId: string): Promise<{ id: string; accessToken: string }> {
  const user = await registerUser(new RestClient(t.url, tenantId));
  const promoted = await new RestClient(t.url, "").request("PATCH", `/api/v1/admin/users/${user.id}`, {
    body: { role: "admin" },
    headers: { authorization: `Bearer ${adminKey}`, "x-tenant-id": tenantId },
  });
  if (promoted.status !== 200) throw new Error(`promote failed: ${promoted.status}`);
  const login = await new RestClient(t.url, tenantId).post("/api/v1/auth/login", { email: user.email, password: user.password });
  return { id: user.id, accessToken: login.body.data.access_token as string };
}
