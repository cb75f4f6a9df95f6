/**
 * The breached-password check through HTTP (docs/sign-in.md#breached-passwords), against a loopback
 * stand-in of Pwned Passwords' range API: a password seen in a breach is refused with 422 on the field
 * that carries it at register, password change, reset and a guest's upgrade; only the first 5 hex
 * characters of its SHA-1 leave the service, asked with `Add-Padding: true`; padding lines are no
 * breach; an API slower than 2 s skips the check (fail-open, a warning and the metric's "skipped").
 */
import { createHash } from "node:crypto";
import { createMetrics, readSettings } from "@mteja/api";
import { describe, expect } from "vitest";
import { RestClient, registerUser, uniqueEmail, type HttpResult, type TestApp } from "./support/app.js";
import { skipDatabaseAgnostic } from "./support/database.js";
import { it } from "./support/fixture.js";
import { logCapture } from "./support/log-lines.js";
import { sample } from "./support/metrics.js";
import { startPwnedPasswords, type PwnedPasswords } from "./support/pwned-passwords.js";
import { waitFor } from "./support/wait.js";

const breachedPassword = "password123!";
const sha1 = (text: string) => createHash("sha1").update(text).digest("hex").toUpperCase();

describe.skipIf(skipDatabaseAgnostic)("breached passwords", () => {
  let t: TestApp;
  let pwned: PwnedPasswords;
  const metrics = createMetrics();
  const log = logCapture();

  it.beforeAll(async ({ launch }) => {
    pwned = await startPwnedPasswords();
    pwned.breach(breachedPassword);
    t = await launch.app(
      { PASSWORD_BREACH_CHECK: "on", PASSWORD_BREACH_API_URL: pwned.url, LOG_LEVEL: "warn" },
      { metrics, logStream: log.stream },
    );
    return () => pwned.close();
  });

  const refusedOn = (res: HttpResult, field: string) => {
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
    expect(res.body.error.details).toEqual([{ path: field, message: "this password has appeared in a data breach; please choose another" }]);
  };
  const register = (password: string, headers: Record<string, string> = {}) =>
    new RestClient(t.url).request("POST", "/api/v1/auth/register", { body: { name: "Otieno", email: uniqueEmail(), password }, headers });

  it("register refuses a breached password on `password` (in Swahili too); only the 5-character prefix leaves, with Add-Padding", async () => {
    const before = pwned.requests.length;
    refusedOn(await register(breachedPassword), "password");
    const asked = pwned.requests.slice(before);
    expect(asked).toEqual([{ prefix: sha1(breachedPassword).slice(0, 5), padding: "true", url: `/range/${sha1(breachedPassword).slice(0, 5)}` }]);
    const sw = await register(breachedPassword, { "accept-language": "sw" });
    expect(sw.body.error.details[0].message).toBe("nenosiri hili limeonekana katika uvujaji wa data; tafadhali chagua jingine");
    expect(sample(await metrics.registry.metrics(), "mteja_password_breach_checks_total", { outcome: "breached" })).toBeGreaterThanOrEqual(2);
  });

  it("a password the range does not list, or lists with count 0 (padding), is taken", async () => {
    expect((await register("a long unbreached passphrase")).status).toBe(201);
    pwned.breach("padded but never breached", 0);
    expect((await register("padded but never breached")).status).toBe(201);
  });

  it("password change and reset refuse a breached new_password on `new_password`", async () => {
    const client = new RestClient(t.url);
    const user = await registerUser(client);
    refusedOn(await client.put("/api/v1/auth/me/password", { current_password: user.password, new_password: breachedPassword }, user.accessToken), "new_password");

    expect((await client.post("/api/v1/auth/forgot-password", { email: user.email })).status).toBe(200);
    const mail = await waitFor(() => t.deps.db.unscoped("test").mailOutbox.findFirst({ where: { toAddress: user.email, textBody: { contains: "reset-password?" } } }));
    const link = new URL(/https?:\/\/\S+\/reset-password\?[^\s"<>]+/.exec(mail.textBody)![0]);
    const body = { token: link.searchParams.get("token"), email: link.searchParams.get("email") };
    refusedOn(await client.post("/api/v1/auth/reset-password", { ...body, new_password: breachedPassword }), "new_password");
    // The link was not spent by the refusal.
    expect((await client.post("/api/v1/auth/reset-password", { ...body, new_password: "another unbreached passphrase" })).status).toBe(200);
  });

  it("a guest's upgrade refuses a breached password on `password`", async () => {
    const client = new RestClient(t.url);
    const guest = await client.post("/api/v1/auth/guest", {});
    refusedOn(await client.post("/api/v1/auth/guest/upgrade", { email: uniqueEmail(), password: breachedPassword }, guest.body.data.access_token), "password");
    expect((await client.get("/api/v1/auth/me", guest.body.data.access_token)).body.data.is_guest).toBe(true);
  });

  it("an API slower than 2 s is skipped: the password is taken, with a warning and the metric's skipped outcome (fail-open)", async () => {
    pwned.delay(2_500);
    try {
      const started = Date.now();
      expect((await register(breachedPassword)).status).toBe(201);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
      expect(sample(await metrics.registry.metrics(), "mteja_password_breach_checks_total", { outcome: "skipped" })).toBe(1);
      expect(log.lines.some((line) => line.level === 40 && String(line.msg).includes("breached-password check skipped"))).toBe(true);
    } finally {
      pwned.delay(0);
    }
  });

  it("PASSWORD_BREACH_CHECK defaults to on in production and off elsewhere; off asks nothing", async ({ launch }) => {
    expect(readSettings({ NODE_ENV: "production" }).PASSWORD_BREACH_CHECK).toBe(true);
    expect(readSettings({ NODE_ENV: "test" }).PASSWORD_BREACH_CHECK).toBe(false);
    expect(readSettings({ NODE_ENV: "development" }).PASSWORD_BREACH_CHECK).toBe(false);
    expect(readSettings({ NODE_ENV: "production" }).PASSWORD_BREACH_API_URL).toBe("https://api.pwnedpasswords.com");
    const off = await launch.app({ PASSWORD_BREACH_CHECK: "off", PASSWORD_BREACH_API_URL: pwned.url });
    const before = pwned.requests.length;
    const res = await new RestClient(off.url).post("/api/v1/auth/register", { name: "Otieno", email: uniqueEmail(), password: breachedPassword });
    expect(res.status).toBe(201);
    expect(pwned.requests.length).toBe(before);
  });
});
