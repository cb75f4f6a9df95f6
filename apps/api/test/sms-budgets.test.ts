/**
 * What texts cost (docs/limits.md#texts): only texts actually written to the SMS outbox count toward
 * the shop's budget (`phone_codes_per_tenant`), the texts of one address at a shop (`sms_texts_per_ip`)
 * or of one signed-in account (`sms_texts_per_account`), and the platform's texts (`sms_texts_platform`, past which a shop sending more than a quarter of them
 * is refused with 503 SMS_UNAVAILABLE while the others go on). A shop's own numbers (settings.limits).
 * Through HTTP, REST and tRPC, on both databases; shared by two instances through Redis.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { adminKey, registerUser, RestClient, startTestApp, type TestApp } from "./support/app.js";
import { testClock } from "./support/clock.js";
import { skipThisTarget, target } from "./support/database.js";
import { dropRedisKeys, IpClient, redisKeys, redisUrl, skipRedis, startPeer, trpcMutation, uniqueIp, uniqueRedisPrefix } from "./support/limits.js";
import { uniquePhone } from "./support/sms.js";
import { logCapture } from "./support/log-lines.js";
import { newShop } from "./support/shops.js";

type Phone = ReturnType<typeof uniquePhone>;

const startAnswer = { success: true, message: "If this number can sign in here, a code is on its way by SMS." };

/** The texts written to the outbox for a phone: what a shop pays for. */
async function textsWritten(t: TestApp, phone: Phone): Promise<number> {
  return t.deps.db.unscoped("test").smsOutbox.count({ where: { toPhone: phone.international } });
}

/** phone/start writes its text after the answer: waits until the phone has `n` texts. */
async function untilTexts(t: TestApp, phone: Phone, n: number): Promise<void> {
  await expect.poll(() => textsWritten(t, phone), { timeout: 10_000 }).toBe(n);
}

/**
 * Waits long enough for the work after phone/start's answer to have written a text if it was going to:
 * a later text to a control phone, asked after it, has been written (each start's work begins 10 ms
 * after its answer, in order).
 */
async function afterPendingTexts(t: TestApp, client: RestClient): Promise<void> {
  const control = uniquePhone();
  expect((await client.post("/api/v1/auth/phone/start", { phone: control.local })).status).toBe(200);
  await untilTexts(t, control, 1);
}

/** The code of the newest text to the phone (texts logged without a provider keep their body). */
async function codeTexted(t: TestApp, phone: Phone): Promise<string> {
  const row = await t.deps.db.unscoped("test").smsOutbox.findFirstOrThrow({ where: { toPhone: phone.international }, orderBy: { createdAt: "desc" } });
  return /\b(\d{6})\b/.exec(row.body)![1]!;
}

/** phone/start for a new phone, waiting for its text: one text charged to the shop (and the platform). */
async function textOnce(t: TestApp, client: RestClient): Promise<Phone> {
  const phone = uniquePhone();
  expect((await client.post("/api/v1/auth/phone/start", { phone: phone.local })).status).toBe(200);
  await untilTexts(t, phone, 1);
  return phone;
}

describe.skipIf(skipThisTarget)("texts sent, per shop, address and account (phone_codes_per_tenant, sms_texts_per_ip, sms_texts_per_account)", () => {
  let t: TestApp;
  it.beforeAll(async ({ launch }) => {
    // Each test but the first texts through shops of its own, so their budgets are apart. Signed-in
    // customers may use the whole budget here: the share kept for sign-in codes is tested below.
    t = await launch.app({
      TRUST_PROXY: "127.0.0.1",
      RATE_LIMIT_RULES: "phone_codes_per_tenant=5/3600,sms_texts_signed_in_per_tenant=5/3600,sms_texts_per_ip=3/3600,sms_texts_per_account=4/3600",
    });
  });

  it("one address repeating phone/start for one number: texts stop at the per-phone limit and the shop's other customers still get codes", async () => {
    const attacker = new IpClient(t.url, uniqueIp());
    const victim = uniquePhone();
    for (let i = 0; i < 12; i++) {
      const start = await attacker.post("/api/v1/auth/phone/start", { phone: victim.local });
      expect([start.status, start.body]).toEqual([200, startAnswer]);
    }
    // Another customer of the shop, from their own address, still gets a code.
    const customer = uniquePhone();
    expect((await new IpClient(t.url, uniqueIp()).post("/api/v1/auth/phone/start", { phone: customer.local })).status).toBe(200);
    await untilTexts(t, customer, 1);
    expect(await textsWritten(t, victim)).toBe(3);

    // The budget counted the 4 texts written, not the 13 requests: one more text fits, then the shop's budget is spent.
    const fifth = uniquePhone();
    expect((await new IpClient(t.url, uniqueIp()).post("/api/v1/auth/phone/start", { phone: fifth.local })).status).toBe(200);
    await untilTexts(t, fifth, 1);
    const sixth = await new IpClient(t.url, uniqueIp()).post("/api/v1/auth/phone/start", { phone: uniquePhone().local });
    expect(sixth.status).toBe(429);
    expect(sixth.body.error.code).toBe("RATE_LIMITED");
  });

  it("me/phone/start over the per-phone limit answers 429 and costs nothing; a spent budget answers 429 alike for every phone, on REST and tRPC", async () => {
    const shop = await newShop(t);
    const client = new RestClient(t.url, shop);
    // A customer signed up by phone: 1 text.
    const known = await textOnce(t, client);
    const signedUp = await client.post("/api/v1/auth/phone/verify", { phone: known.local, code: await codeTexted(t, known) });
    expect(signedUp.status).toBe(200);

    // An email account proving a new number: 3 texts, then the per-phone limit (429, nothing sent, nothing charged).
    const user = await registerUser(client);
    const own = uniquePhone();
    for (let i = 0; i < 3; i++) expect((await client.post("/api/v1/auth/me/phone/start", { phone: own.local }, user.accessToken)).status).toBe(200);
    for (let i = 0; i < 3; i++) {
      const limited = await client.post("/api/v1/auth/me/phone/start", { phone: own.local }, user.accessToken);
      expect(limited.status).toBe(429);
      expect(limited.body.error.code).toBe("RATE_LIMITED");
    }
    expect(await textsWritten(t, own)).toBe(3);

    // 4 texts sent: the fifth fits, whatever asked for the others.
    await textOnce(t, client);
    const spent = await client.post("/api/v1/auth/me/phone/start", { phone: uniquePhone().local }, user.accessToken);
    expect(spent.status).toBe(429);
    expect(spent.body.error.code).toBe("RATE_LIMITED");
    expect(Number(spent.headers.get("retry-after"))).toBeGreaterThan(0);

    // phone/start reads only the shop's budget up front: a known and an unknown phone get the same answer.
    const forKnown = await client.post("/api/v1/auth/phone/start", { phone: known.local });
    const forUnknown = await client.post("/api/v1/auth/phone/start", { phone: uniquePhone().local });
    expect(forKnown.status).toBe(429);
    expect(forKnown.body).toEqual(forUnknown.body);
    expect(forUnknown.status).toBe(429);
    const overTrpc = await trpcMutation(t.url, "phone.start", { phone: known.local }, { "x-tenant-id": shop });
    expect([overTrpc.status, overTrpc.code]).toEqual([429, "RATE_LIMITED"]);
    expect(Number(overTrpc.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await textsWritten(t, known)).toBe(1);
  });

  it("a shop's own numbers (settings.limits) replace the process's for that shop only, and null gives the process's back", async () => {
    const tight = await newShop(t, { limits: { phone_codes_per_tenant: 2, sms_texts_per_ip: 1 } });
    const other = await newShop(t);
    const address = uniqueIp();

    // One text per address at the tight shop: the second phone from the same address gets the same 200 and no text.
    const first = await textOnce(t, new IpClient(t.url, address, tight));
    const second = uniquePhone();
    expect((await new IpClient(t.url, address, tight).post("/api/v1/auth/phone/start", { phone: second.local })).body).toEqual(startAnswer);
    await afterPendingTexts(t, new IpClient(t.url, uniqueIp(), tight));
    expect(await textsWritten(t, second)).toBe(0);
    expect(await textsWritten(t, first)).toBe(1);
    // Two texts in all (the control above was the second): the tight shop's budget is spent; the other shop's is not.
    expect((await new IpClient(t.url, uniqueIp(), tight).post("/api/v1/auth/phone/start", { phone: uniquePhone().local })).status).toBe(429);
    await textOnce(t, new IpClient(t.url, address, other));
    await textOnce(t, new IpClient(t.url, address, other));

    const shown = await new RestClient(t.url, "").request("GET", "/api/v1/admin/tenants", { headers: { authorization: `Bearer ${adminKey}` } });
    const tightShown = shown.body.data.tenants.find((tenant: { id: string }) => tenant.id === tight);
    expect(tightShown.settings.limits).toEqual({ phone_codes_per_tenant: 2, sms_texts_per_ip: 1 });
    const refused = await new RestClient(t.url, "").request("PATCH", `/api/v1/admin/tenants/${tight}`, {
      body: { settings: { limits: { phone_codes_per_tenant: 0 } } },
      headers: { authorization: `Bearer ${adminKey}` },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.error.details[0].path).toBe("settings.limits.phone_codes_per_tenant");
    const lifted = await new RestClient(t.url, "").request("PATCH", `/api/v1/admin/tenants/${tight}`, {
      body: { settings: { limits: { phone_codes_per_tenant: null } } },
      headers: { authorization: `Bearer ${adminKey}` },
    });
    expect(lifted.status).toBe(200);
    expect(lifted.body.data.tenant.settings.limits).toEqual({ sms_texts_per_ip: 1 });
    await textOnce(t, new IpClient(t.url, uniqueIp(), tight));
  });

  it("past sms_texts_per_ip an address gets the same 200 and no text; other addresses, other shops and signed-in customers go on", async () => {
    const shop = await newShop(t);
    const address = uniqueIp();
    const fromAddress = new IpClient(t.url, address, shop);
    for (let i = 0; i < 3; i++) await textOnce(t, fromAddress);
    const skipped = [uniquePhone(), uniquePhone()];
    for (const phone of skipped) {
      const start = await fromAddress.post("/api/v1/auth/phone/start", { phone: phone.local });
      expect([start.status, start.body]).toEqual([200, startAnswer]);
    }
    const overTrpc = await trpcMutation(t.url, "phone.start", { phone: skipped[0]!.local }, { "x-forwarded-for": address, "x-tenant-id": shop });
    expect(overTrpc.status).toBe(200);
    await afterPendingTexts(t, new IpClient(t.url, uniqueIp(), shop));
    for (const phone of skipped) expect(await textsWritten(t, phone)).toBe(0);

    // Another shop's customers behind the same address have their own count.
    await textOnce(t, new IpClient(t.url, address, await newShop(t)));
    // A signed-in customer from that address is not counted with the address's sign-in codes.
    const user = await registerUser(fromAddress);
    const own = uniquePhone();
    expect((await fromAddress.post("/api/v1/auth/me/phone/start", { phone: own.local }, user.accessToken)).status).toBe(200);
    expect(await textsWritten(t, own)).toBe(1);
  });


  it("past sms_texts_per_account a signed-in customer texting new numbers gets 429; the shop's other customers go on", async () => {
    const shop = await newShop(t, { limits: { phone_codes_per_tenant: 100 } });
    const client = new RestClient(t.url, shop);
    const spammer = await registerUser(client);
    for (let i = 0; i < 4; i++) expect((await client.post("/api/v1/auth/me/phone/start", { phone: uniquePhone().local }, spammer.accessToken)).status).toBe(200);
    const limited = await client.post("/api/v1/auth/me/phone/start", { phone: uniquePhone().local }, spammer.accessToken);
    expect([limited.status, limited.body.error.code]).toEqual([429, "RATE_LIMITED"]);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    const overTrpc = await trpcMutation(t.url, "phone.meStart", { phone: uniquePhone().local }, { "x-tenant-id": shop, authorization: `Bearer ${spammer.accessToken}` });
    expect([overTrpc.status, overTrpc.code]).toEqual([429, "RATE_LIMITED"]);

    const other = await registerUser(client);
    const own = uniquePhone();
    expect((await client.post("/api/v1/auth/me/phone/start", { phone: own.local }, other.accessToken)).status).toBe(200);
    expect(await textsWritten(t, own)).toBe(1);
    await textOnce(t, new IpClient(t.url, uniqueIp(), shop));
  });
});

describe.skipIf(skipThisTarget)("sign-in codes keep part of the shop's budget (sms_texts_signed_in_per_tenant, sms_texts_signed_in_per_ip)", () => {
  let t: TestApp;
  it.beforeAll(async ({ launch }) => {
    // Each test texts through shops of its own, with numbers of their own (settings.limits).
    t = await launch.app({ TRUST_PROXY: "127.0.0.1" });
  });

  /** me/phone/start to a new number from a signed-in account: its status and, if sent, the phone. */
  async function textNewNumber(client: RestClient, token: string): Promise<number> {
    const phone = uniquePhone();
    const answer = await client.post("/api/v1/auth/me/phone/start", { phone: phone.local }, token);
    if (answer.status === 200) expect(await textsWritten(t, phone)).toBe(1);
    return answer.status;
  }

  it("throw-away accounts from one address texting new numbers spend at most half the budget: an unknown customer still gets a sign-in code", async () => {
    // The reviewer's scenario, scaled down: a budget of 8 texts; 4 accounts registered from one address,
    // each texting 4 new numbers (16 texts asked for, twice the budget).
    const shop = await newShop(t, { limits: { phone_codes_per_tenant: 8 } });
    const address = uniqueIp();
    const answers: number[] = [];
    for (let account = 0; account < 4; account++) {
      const client = new IpClient(t.url, address, shop);
      const user = await registerUser(client);
      for (let number = 0; number < 4; number++) answers.push(await textNewNumber(client, user.accessToken));
    }
    expect(answers.filter((status) => status === 200)).toHaveLength(4);
    expect(answers.filter((status) => status === 429)).toHaveLength(12);

    // Every customer's sign-in still works: an unknown phone, from another address, gets its code.
    const customer = uniquePhone();
    const start = await new IpClient(t.url, uniqueIp(), shop).post("/api/v1/auth/phone/start", { phone: customer.local });
    expect([start.status, start.body]).toEqual([200, startAnswer]);
    await untilTexts(t, customer, 1);
    const verified = await new IpClient(t.url, uniqueIp(), shop).post("/api/v1/auth/phone/verify", { phone: customer.local, code: await codeTexted(t, customer) });
    expect(verified.status).toBe(200);
    // Sign-in codes may use the rest of the budget, and only then is it spent for them too.
    for (let i = 0; i < 3; i++) await textOnce(t, new IpClient(t.url, uniqueIp(), shop));
    expect((await new IpClient(t.url, uniqueIp(), shop).post("/api/v1/auth/phone/start", { phone: uniquePhone().local })).status).toBe(429);
  });

  it("signed-in texts are counted per address, apart from the address's sign-in codes; a shop sets its own numbers for both rules", async () => {
    const shop = await newShop(t, { limits: { phone_codes_per_tenant: 100, sms_texts_signed_in_per_tenant: 90, sms_texts_signed_in_per_ip: 2 } });
    const address = uniqueIp();
    const first = new IpClient(t.url, address, shop);
    const one = await registerUser(first);
    expect(await textNewNumber(first, one.accessToken)).toBe(200);
    expect(await textNewNumber(first, one.accessToken)).toBe(200);
    // Another account behind the same address: the address's signed-in texts are spent.
    const second = new IpClient(t.url, address, shop);
    const two = await registerUser(second);
    const refused = await second.post("/api/v1/auth/me/phone/start", { phone: uniquePhone().local }, two.accessToken);
    expect([refused.status, refused.body.error.code]).toEqual([429, "RATE_LIMITED"]);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    // The same account from another address goes on; so do sign-in codes from the first address.
    expect(await textNewNumber(new IpClient(t.url, uniqueIp(), shop), two.accessToken)).toBe(200);
    await textOnce(t, new IpClient(t.url, address, shop));

    const shown = await new RestClient(t.url, "").request("GET", "/api/v1/admin/tenants", { headers: { authorization: `Bearer ${adminKey}` } });
    expect(shown.body.data.tenants.find((tenant: { id: string }) => tenant.id === shop).settings.limits).toEqual({
      phone_codes_per_tenant: 100,
      sms_texts_signed_in_per_tenant: 90,
      sms_texts_signed_in_per_ip: 2,
    });
  });

  it("security notices never take the shop's budget of sign-in codes, and always go", async () => {
    const shop = await newShop(t, { limits: { phone_codes_per_tenant: 2 } });
    const client = new IpClient(t.url, uniqueIp(), shop);
    // A customer signs up by phone (1 text of the budget) and adds a first email: a notice to the phone.
    const own = await textOnce(t, client);
    const signedUp = await client.post("/api/v1/auth/phone/verify", { phone: own.local, code: await codeTexted(t, own) });
    expect(signedUp.status).toBe(200);
    const token = signedUp.body.data.access_token as string;
    await changeEmail(client, token);
    expect(await noticesTo(own)).toBe(1);

    // The notice took nothing: one more sign-in code fits the budget of 2, then it is spent.
    await textOnce(t, new IpClient(t.url, uniqueIp(), shop));
    expect((await new IpClient(t.url, uniqueIp(), shop).post("/api/v1/auth/phone/start", { phone: uniquePhone().local })).status).toBe(429);
    // A spent budget still sends a notice: changing the email (on the fresh session) texts the phone.
    await changeEmail(client, token);
    expect(await noticesTo(own)).toBe(2);
  });

  async function changeEmail(client: RestClient, token: string): Promise<void> {
    const email = `notice-${randomBytes(6).toString("hex")}@example.com`;
    expect((await client.post("/api/v1/auth/me/email/start", { email }, token)).status).toBe(200);
    const mail = await t.deps.db.unscoped("test").mailOutbox.findFirstOrThrow({ where: { toAddress: email, kind: "confirmEmailChange" } });
    const link = new URL(/https?:\/\/\S+\/verify-email\?[^\s"<>]+/.exec(mail.textBody)![0]);
    expect((await client.post("/api/v1/auth/me/email/verify", { token: link.searchParams.get("token") }, token)).status).toBe(200);
  }

  function noticesTo(phone: Phone): Promise<number> {
    return t.deps.db.unscoped("test").smsOutbox.count({ where: { toPhone: phone.international, kind: "security_notice" } });
  }
});

describe.skipIf(skipThisTarget)("the platform's texts (sms_texts_platform)", () => {
  const clock = testClock();
  const logLines: Array<Record<string, unknown>> = [];
  let t: TestApp;
  let heavy: string;
  let light: string;
  it.beforeAll(async ({ launch }) => {
    const { stream: logStream } = logCapture(logLines);
    t = await launch.app({ LOG_LEVEL: "warn", RATE_LIMIT_RULES: "sms_texts_platform=8/3600" }, { now: clock.now, logStream });
    heavy = await newShop(t);
    light = await newShop(t);
  });

  const warnings = () => logLines.filter((line) => String(line.msg).startsWith("the platform has sent sms_texts_platform texts"));

  it("past its number, refuses a shop that sent more than a quarter of its texts with 503 SMS_UNAVAILABLE, serves one that sent a quarter, and warns once", async () => {
    for (let i = 0; i < 6; i++) await textOnce(t, new RestClient(t.url, heavy));
    for (let i = 0; i < 2; i++) await textOnce(t, new RestClient(t.url, light));
    expect(warnings()).toHaveLength(0);

    // 8 texts: the platform's number. The heavy shop sent 6 of them (more than a quarter): refused, on every path.
    const refused = await new RestClient(t.url, heavy).post("/api/v1/auth/phone/start", { phone: uniquePhone().local });
    expect(refused.status).toBe(503);
    expect(refused.body.error.code).toBe("SMS_UNAVAILABLE");
    expect(refused.body.message).toBe("Text messages cannot be sent from this shop right now; please try again later.");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(3600);
    const inSwahili = await new RestClient(t.url, heavy).request("POST", "/api/v1/auth/phone/start", {
      body: { phone: uniquePhone().local },
      headers: { "accept-language": "sw" },
    });
    expect(inSwahili.body.message).toBe("Ujumbe mfupi hauwezi kutumwa kutoka duka hili kwa sasa; tafadhali jaribu tena baadaye.");
    const overTrpc = await trpcMutation(t.url, "phone.start", { phone: uniquePhone().local }, { "x-tenant-id": heavy });
    expect([overTrpc.status, overTrpc.code]).toEqual([503, "SMS_UNAVAILABLE"]);
    const heavyClient = new RestClient(t.url, heavy);
    const user = await registerUser(heavyClient);
    const meStart = await heavyClient.post("/api/v1/auth/me/phone/start", { phone: uniquePhone().local }, user.accessToken);
    expect([meStart.status, meStart.body.error.code]).toEqual([503, "SMS_UNAVAILABLE"]);

    // The light shop sent 2 of the 8, exactly a quarter (not more): it goes on, past the platform's number.
    const served = await textOnce(t, new RestClient(t.url, light));
    // Now 3 of 9: more than a quarter.
    const next = await new RestClient(t.url, light).post("/api/v1/auth/phone/start", { phone: uniquePhone().local });
    expect(next.status).toBe(503);
    expect(await textsWritten(t, served)).toBe(1);

    // One warning for the window, however many requests found the platform past its number.
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toMatchObject({ level: 40, limit: 8, platformTexts: 8 });

    // The next window starts afresh (windows follow the service clock).
    clock.advance(3600);
    await textOnce(t, new RestClient(t.url, heavy));
  });
});

// Shared counts need two instances on one database: run once, on the embedded one (as limits.security.test.ts).
describe.skipIf(skipThisTarget || target !== "embedded" || skipRedis)("text budgets in Redis (REDIS_URL)", () => {
  const prefix = uniqueRedisPrefix();
  const env = {
    REDIS_URL: redisUrl,
    REDIS_KEY_PREFIX: prefix,
    DATA_ENCRYPTION_KEY: randomBytes(32).toString("hex"),
    RATE_LIMIT_RULES: "sms_texts_platform=4/3600",
  };
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await startTestApp(env);
    b = await startPeer(a, env);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await dropRedisKeys(prefix);
  });

  it("two instances share the shop's budget and the platform's count", async () => {
    const shop = await newShop(a);
    const other = await newShop(a, { limits: { phone_codes_per_tenant: 2 } });
    // Four texts of one shop, two through each instance: the platform's number, all of them the shop's.
    for (const url of [a.url, b.url, a.url, b.url]) await textOnce(a, new RestClient(url, shop));
    const onA = await new RestClient(a.url, shop).post("/api/v1/auth/phone/start", { phone: uniquePhone().local });
    expect([onA.status, onA.body.error?.code]).toEqual([503, "SMS_UNAVAILABLE"]);
    // The other shop sent none of them: it goes on, through either instance, until its own budget (2) is
    // spent, counted across both instances.
    await textOnce(a, new RestClient(b.url, other));
    await textOnce(a, new RestClient(a.url, other));
    const spent = await new RestClient(b.url, other).post("/api/v1/auth/phone/start", { phone: uniquePhone().local });
    expect([spent.status, spent.body.error?.code]).toEqual([429, "RATE_LIMITED"]);

    const keys = await redisKeys(prefix);
    expect(keys).toContain(`${prefix}:limit:phone_codes_per_tenant:${shop}`);
    expect(keys.some((key) => key.startsWith(`${prefix}:tally:sms_texts_platform:`) && key.endsWith(":platform"))).toBe(true);
  });
});
