/**
 * Issue 28, second review, findings 1 and 2: turning two-factor on and off in a loop texted the
 * account's phone and mailed its address without limit (45 loops: 45 texts, 90 mails, to an address
 * nobody had verified), spending the shop's share of the platform's texts. Now:
 *
 * - `two_factor_enables_per_account` (3 an hour): otp/setup, and otp/verify that would turn two-factor
 *   on, answer 429 RATE_LIMITED with Retry-After past it — the loop stops at its source;
 * - `security_notices_per_account` (5 an hour, a shop may set its own number): past it the notice's
 *   mail and text are skipped and the text counted nowhere; the change and its security event are
 *   kept, and the log says so once per account per window;
 * - a notice to an address that is not verified also takes a point of `mails_per_account`, the cap of
 *   what an unverified address can be sent (verification and reset mails).
 *
 * Through HTTP on both databases; mails and texts read from the outboxes (texts are logged, not sent).
 */
import { describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { adminKey, RestClient, registerUser, type HttpResult, type TestApp } from "./support/app.js";
import { skipThisTarget } from "./support/database.js";
import { totpClock } from "./support/two-factor.js";
import { totpAt } from "./support/totp.js";
import { uniquePhone } from "./support/sms.js";
import { logCapture, type LogLine } from "./support/log-lines.js";
import { newShop } from "./support/shops.js";

type Clock = ReturnType<typeof totpClock>;
type Phone = ReturnType<typeof uniquePhone>;
/** How many mails of each kind `email` got (the service clock stands still here: no order by time). */
async function mailKindsTo(t: TestApp, email: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const mail of await t.deps.db.unscoped("test").mailOutbox.findMany({ where: { toAddress: email } })) counts[mail.kind] = (counts[mail.kind] ?? 0) + 1;
  return counts;
}

const noticesTexted = (t: TestApp, phone: Phone) => t.deps.db.unscoped("test").smsOutbox.count({ where: { toPhone: phone.international, kind: "security_notice" } });

/** A password account of `shop` whose address is verified through its mailed link. */
async function verifiedAccount(t: TestApp, shop: string) {
  const client = new RestClient(t.url, shop);
  const user = await registerUser(client);
  const mail = await t.deps.db.unscoped("test").mailOutbox.findFirstOrThrow({ where: { toAddress: user.email, kind: "verifyEmail" } });
  const link = new URL(/https?:\/\/\S+\/verify-email\?[^\s"<>]+/.exec(mail.textBody)![0]);
  expect((await client.post("/api/v1/auth/verify-email", { token: link.searchParams.get("token"), email: user.email })).status).toBe(200);
  return { ...user, client };
}

/** me/phone/start + me/phone/verify, the code read from the outbox: the account's phone, verified. */
async function verifyOwnPhone(t: TestApp, client: RestClient, token: string): Promise<Phone> {
  const phone = uniquePhone();
  expect((await client.post("/api/v1/auth/me/phone/start", { phone: phone.local }, token)).status).toBe(200);
  const text = await t.deps.db.unscoped("test").smsOutbox.findFirstOrThrow({ where: { toPhone: phone.international } });
  const code = /\b(\d{6})\b/.exec(text.body)![1]!;
  expect((await client.post("/api/v1/auth/me/phone/verify", { code }, token)).status).toBe(200);
  return phone;
}

/**
 * The reviewer's loop: otp/setup → otp/verify → otp/disable { password }, on one fresh session, at most
 * `rounds` times; stops at the first answer that is not 200 and returns it with the rounds completed.
 */
async function loopTwoFactor(clock: Clock, client: RestClient, user: { accessToken: string; password: string }, rounds: number) {
  for (let done = 0; done < rounds; done++) {
    const setup = await client.post("/api/v1/auth/otp/setup", undefined, user.accessToken);
    if (setup.status !== 200) return { done, refused: setup };
    const verify = await client.post("/api/v1/auth/otp/verify", { code: totpAt(setup.body.data.secret, clock.now()) }, user.accessToken);
    expect(verify.status, JSON.stringify(verify.body)).toBe(200);
    const disable = await client.request("DELETE", "/api/v1/auth/otp/disable", { body: { password: user.password }, token: user.accessToken });
    expect(disable.status, JSON.stringify(disable.body)).toBe(200);
  }
  return { done: rounds, refused: undefined };
}

function expectRateLimited(answer: HttpResult | undefined, window: number): void {
  expect([answer?.status, answer?.body?.error?.code]).toEqual([429, "RATE_LIMITED"]);
  const retryAfter = Number(answer!.headers.get("retry-after"));
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(window);
}

async function eventTypes(client: RestClient, token: string): Promise<string[]> {
  const events = (await client.get("/api/v1/auth/me/security-events?limit=100", token)).body.data.security_events as Array<{ type: string }>;
  return events.map((event) => event.type);
}

const skippedLines = (lines: LogLine[], userId: string) => lines.filter((line) => line.userId === userId && String(line.msg).startsWith("security notices of this account"));

describe.skipIf(skipThisTarget)("security notices per account and two-factor enables, on the defaults", () => {
  const clock = totpClock();
  const log = logCapture();
  let t: TestApp;
  it.beforeAll(async ({ launch }) => {
    t = await launch.app({ LOG_LEVEL: "warn" }, { now: clock.now, logStream: log.stream });
  });

  it("the reviewer's loop stops at the 3rd enable (429 RATE_LIMITED, Retry-After); the account is told at most 5 times an hour, every change still recorded", async () => {
    const shop = await newShop(t);
    const user = await verifiedAccount(t, shop);
    const phone = await verifyOwnPhone(t, user.client, user.accessToken);
    // A first phone is a factor change: notice 1 (a mail; there was no phone to text).
    expect(await mailKindsTo(t, user.email)).toEqual({ verifyEmail: 1, phoneAdded: 1 });

    const loop = await loopTwoFactor(clock, user.client, user, 10);
    expect(loop.done).toBe(3);
    expectRateLimited(loop.refused, 3600);
    const me = (await user.client.get("/api/v1/auth/me", user.accessToken)).body.data;
    expect(me.otp_enabled).toBe(false);

    // Notices 2–5 (on, off, on, off) were sent; the third on and off were not.
    expect(await mailKindsTo(t, user.email)).toEqual({ verifyEmail: 1, phoneAdded: 1, twoFactorEnabled: 2, twoFactorDisabled: 2 });
    expect(await noticesTexted(t, phone)).toBe(2);
    // The skipped text was charged nowhere: the shop's share of the platform's texts is what it wrote.
    const written = await t.deps.db.unscoped("test").smsOutbox.count({ where: { tenantId: shop } });
    expect(written).toBe(3);
    expect((await t.deps.limiter.tally("sms_texts_platform", [`shop:${shop}`], 0)).counts).toEqual([written]);
    // Every change is recorded all the same.
    const types = await eventTypes(user.client, user.accessToken);
    expect(types.filter((type) => type === "otp.enabled")).toHaveLength(3);
    expect(types.filter((type) => type === "otp.disabled")).toHaveLength(3);
    // One log line for the account's window, however many notices it skipped.
    expect(skippedLines(log.lines, user.id)).toHaveLength(1);
    expect(skippedLines(log.lines, user.id)[0]).toMatchObject({ level: 40, tenantId: shop, limit: 5 });
  });

  it("otp/verify that would turn two-factor on past the number answers 429 and turns nothing on (the count reached meanwhile, as by a parallel request)", async () => {
    const user = await verifiedAccount(t, "default");
    const setup = await user.client.post("/api/v1/auth/otp/setup", undefined, user.accessToken);
    expect(setup.status).toBe(200);
    for (let i = 0; i < 3; i++) await t.deps.limiter.consume("two_factor_enables_per_account", `default:${user.id}`);
    const verify = await user.client.post("/api/v1/auth/otp/verify", { code: totpAt(setup.body.data.secret, clock.now()) }, user.accessToken);
    expectRateLimited(verify, 3600);
    expect((await user.client.get("/api/v1/auth/me", user.accessToken)).body.data.otp_enabled).toBe(false);
    expect(await mailKindsTo(t, user.email)).toEqual({ verifyEmail: 1 });
    expect(await eventTypes(user.client, user.accessToken)).not.toContain("otp.enabled");
  });

  it("an address nobody verified gets no more than the mail cap of its account (mails_per_account, 5 an hour) whatever the account does", async () => {
    // Anyone may register with someone else's address: it is never verified.
    const client = new RestClient(t.url);
    const squatter = await registerUser(client);
    for (let i = 0; i < 2; i++) expect((await client.post("/api/v1/auth/verify-email/resend", undefined, squatter.accessToken)).status).toBe(200);
    await expect.poll(async () => (await mailKindsTo(t, squatter.email)).verifyEmail, { timeout: 10_000 }).toBe(3);

    const loop = await loopTwoFactor(clock, client, squatter, 10);
    expect(loop.done).toBe(3);
    // The registration's mail, then 5: two resends and three notices; the other notices were not mailed.
    expect(await mailKindsTo(t, squatter.email)).toEqual({ verifyEmail: 3, twoFactorEnabled: 2, twoFactorDisabled: 1 });
    expect((await eventTypes(client, squatter.accessToken)).filter((type) => type.startsWith("otp."))).toHaveLength(6);
  });

  it("a shop sets its own number (settings.limits.security_notices_per_account)", async () => {
    const shop = await newShop(t, { limits: { security_notices_per_account: 1 } });
    const shown = await new RestClient(t.url, "").request("GET", "/api/v1/admin/tenants", { headers: { authorization: `Bearer ${adminKey}` } });
    expect(shown.body.data.tenants.find((tenant: { id: string }) => tenant.id === shop).settings.limits).toEqual({ security_notices_per_account: 1 });
    const user = await verifiedAccount(t, shop);
    expect((await loopTwoFactor(clock, user.client, user, 2)).done).toBe(2);
    expect(await mailKindsTo(t, user.email)).toEqual({ verifyEmail: 1, twoFactorEnabled: 1 });
  });
});

describe.skipIf(skipThisTarget)("security notices per account: the window ends", () => {
  const clock = totpClock();
  const log = logCapture();
  let t: TestApp;
  it.beforeAll(async ({ launch }) => {
    t = await launch.app(
      { LOG_LEVEL: "warn", RATE_LIMIT_RULES: "security_notices_per_account=1/3,two_factor_enables_per_account=1/3" },
      { now: clock.now, logStream: log.stream },
    );
  });

  it("past the window the account may turn two-factor on again and is told again; the log speaks once per window", async () => {
    const user = await verifiedAccount(t, "default");
    const first = await loopTwoFactor(clock, user.client, user, 2);
    expect(first.done).toBe(1);
    expectRateLimited(first.refused, 3);
    expect(await mailKindsTo(t, user.email)).toEqual({ verifyEmail: 1, twoFactorEnabled: 1 });
    expect(skippedLines(log.lines, user.id)).toHaveLength(1);

    await new Promise((resolve) => setTimeout(resolve, Number(first.refused!.headers.get("retry-after")) * 1000 + 100));
    expect((await loopTwoFactor(clock, user.client, user, 1)).done).toBe(1);
    expect(await mailKindsTo(t, user.email)).toEqual({ verifyEmail: 1, twoFactorEnabled: 2 });
    expect(skippedLines(log.lines, user.id)).toHaveLength(2);
  });
});
