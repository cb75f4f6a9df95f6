/**
 * CAPTCHA through HTTP (docs/sign-in.md#captcha), against the loopback stand-in of the verify APIs
 * (apps/captcha-sim): where a shop's `settings.captcha` says "always", register, guest, phone/start and
 * forgot-password need a token in `X-Captcha-Token`, checked once with the provider in its wire format
 * (Turnstile and hCaptcha); missing or refused (a reused token among them): 403 CAPTCHA_REQUIRED; a
 * provider that does not answer: 503 CAPTCHA_UNAVAILABLE (fail-closed). With no provider, "always"
 * acts as "never", and the start says so.
 */
import { buildCaptchaSimulator, type CaptchaSimulator } from "@mteja/captcha-sim";
import { readSettings } from "@mteja/api";
import { describe, expect } from "vitest";
import { adminKey, RestClient, trpcClient, uniqueEmail, type HttpResult, type TestApp } from "./support/app.js";
import { skipDatabaseAgnostic } from "./support/database.js";
import { it } from "./support/fixture.js";
import { logCapture } from "./support/log-lines.js";
import { newShop } from "./support/shops.js";

const secret = "captcha-test-secret";
const everyFlow = { register: "always", guest: "always", phoneStart: "always", forgotPassword: "always" };

describe.skipIf(skipDatabaseAgnostic)("CAPTCHA", () => {
  let sim: CaptchaSimulator;
  let simUrl: string;
  let t: TestApp;
  let shop: string;

  it.beforeAll(async ({ launch }) => {
    sim = buildCaptchaSimulator({ secret });
    simUrl = await sim.listen({ host: "127.0.0.1", port: 0 });
    t = await launch.app({ CAPTCHA_PROVIDER: "turnstile", CAPTCHA_SECRET: secret, CAPTCHA_VERIFY_URL: `${simUrl}/turnstile/v0/siteverify` });
    shop = await newShop(t, { captcha: everyFlow });
    return () => sim.close();
  });

  const call = (path: string, body: unknown, captcha?: string, tenant = shop) =>
    new RestClient(t.url, tenant).request("POST", path, { body, headers: captcha ? { "x-captcha-token": captcha } : {} });
  const expectError = (res: HttpResult, status: number, code: string) => {
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body.error.code).toBe(code);
  };
  const registerBody = () => ({ name: "Kamau", email: uniqueEmail(), password: "a long unbreached passphrase" });

  it("register needs a token where the shop says always: none 403 CAPTCHA_REQUIRED; a solved one passes, checked once in Turnstile's form", async () => {
    const missing = await call("/api/v1/auth/register", registerBody());
    expectError(missing, 403, "CAPTCHA_REQUIRED");
    const token = sim.issueToken();
    const before = sim.calls.length;
    expect((await call("/api/v1/auth/register", registerBody(), token)).status).toBe(201);
    expect(sim.calls.slice(before)).toEqual([{ provider: "turnstile", response: token, remoteip: "127.0.0.1", success: true }]);
  });

  it("a reused token is refused by the provider: 403 CAPTCHA_REQUIRED, and nothing is created", async () => {
    const token = sim.issueToken();
    expect((await call("/api/v1/auth/guest", {}, token)).status).toBe(201);
    const body = registerBody();
    const reused = await call("/api/v1/auth/register", body, token);
    expectError(reused, 403, "CAPTCHA_REQUIRED");
    expect(reused.body.message).toBe("The CAPTCHA was not accepted (wrong, expired or already used). Please complete it again.");
    expect(await t.deps.db.unscoped("test").user.count({ where: { email: body.email } })).toBe(0);
    expectError(await call("/api/v1/auth/register", registerBody(), "forged-token"), 403, "CAPTCHA_REQUIRED");
  });

  it("guest, phone/start and forgot-password each need one; a shop that says never (the default) needs none", async () => {
    expectError(await call("/api/v1/auth/guest", {}), 403, "CAPTCHA_REQUIRED");
    expectError(await call("/api/v1/auth/phone/start", { phone: "0712345678" }), 403, "CAPTCHA_REQUIRED");
    expectError(await call("/api/v1/auth/forgot-password", { email: uniqueEmail() }), 403, "CAPTCHA_REQUIRED");
    expect((await call("/api/v1/auth/phone/start", { phone: "0712345678" }, sim.issueToken())).status).toBe(200);
    expect((await call("/api/v1/auth/forgot-password", { email: uniqueEmail() }, sim.issueToken())).status).toBe(200);
    expect((await call("/api/v1/auth/register", registerBody(), undefined, "default")).status).toBe(201);
    // One flow on, the others off.
    const partial = await newShop(t, { captcha: { guest: "always" } });
    expect((await call("/api/v1/auth/register", registerBody(), undefined, partial)).status).toBe(201);
    expectError(await call("/api/v1/auth/guest", {}, undefined, partial), 403, "CAPTCHA_REQUIRED");
  });

  it("over tRPC the same header is read", async () => {
    let captcha = "";
    const trpc = trpcClient(t.url, () => ({ "x-tenant-id": shop, ...(captcha ? { "x-captcha-token": captcha } : {}) }));
    const refused = await trpc.auth.guest.mutate({}).catch((error: unknown) => error as { data?: { httpStatus?: number } });
    expect((refused as { data?: { httpStatus?: number } }).data?.httpStatus).toBe(403);
    captcha = sim.issueToken();
    expect((await trpc.auth.guest.mutate({})).data.user.is_guest).toBe(true);
  });

  it("a verify API that does not answer: 503 CAPTCHA_UNAVAILABLE (fail-closed), as one that refuses connections", async ({ launch }) => {
    sim.hang(true);
    try {
      expectError(await call("/api/v1/auth/register", registerBody(), sim.issueToken()), 503, "CAPTCHA_UNAVAILABLE");
    } finally {
      sim.hang(false);
    }
    const closed = buildCaptchaSimulator({ secret });
    const closedUrl = await closed.listen({ host: "127.0.0.1", port: 0 });
    await closed.close();
    const away = await launch.app({ CAPTCHA_PROVIDER: "turnstile", CAPTCHA_SECRET: secret, CAPTCHA_VERIFY_URL: `${closedUrl}/turnstile/v0/siteverify` });
    const awayShop = await newShop(away, { captcha: everyFlow });
    const res = await new RestClient(away.url, awayShop).request("POST", "/api/v1/auth/guest", { body: {}, headers: { "x-captcha-token": "anything" } });
    expectError(res, 503, "CAPTCHA_UNAVAILABLE");
  });

  it("hCaptcha: its siteverify, the same form; a reused token refused", async ({ launch }) => {
    const h = await launch.app({ CAPTCHA_PROVIDER: "hcaptcha", CAPTCHA_SECRET: secret, CAPTCHA_VERIFY_URL: `${simUrl}/siteverify` });
    const hShop = await newShop(h, { captcha: everyFlow });
    const token = sim.issueToken();
    const guest = (captcha: string) => new RestClient(h.url, hShop).request("POST", "/api/v1/auth/guest", { body: {}, headers: { "x-captcha-token": captcha } });
    expect((await guest(token)).status).toBe(201);
    expect(sim.calls.at(-1)).toMatchObject({ provider: "hcaptcha", response: token, success: true });
    expectError(await guest(token), 403, "CAPTCHA_REQUIRED");
  });

  it("with no provider a shop's always acts as never, and the start warns, naming the shop", async ({ launch }) => {
    const log = logCapture();
    // Two instances of one database share its encryption key.
    const key = { DATA_ENCRYPTION_KEY: "ab".repeat(32) };
    const first = await launch.app(key);
    const asking = await newShop(first, { captcha: { register: "always" } });
    const second = await launch.app({ ...key, LOG_LEVEL: "warn" }, { database: first.database, logStream: log.stream });
    expect((await new RestClient(second.url, asking).post("/api/v1/auth/register", registerBody())).status).toBe(201);
    const warning = log.lines.find((line) => String(line.msg).includes("CAPTCHA_PROVIDER is off"));
    expect(warning).toMatchObject({ level: 40, shops: expect.arrayContaining([asking]) });
  });

  it("settings: a provider needs its secret; a shop's flow takes always or never", async () => {
    expect(() => readSettings({ CAPTCHA_PROVIDER: "turnstile" })).toThrow(/CAPTCHA_SECRET is required/);
    const patched = await new RestClient(t.url, "").request("PATCH", `/api/v1/admin/tenants/${shop}`, {
      body: { settings: { captcha: { register: "sometimes" } } },
      headers: { authorization: `Bearer ${adminKey}` },
    });
    expect(patched.status).toBe(422);
  });
});
