/**
 * Issue 28, finding 1: an account taken over with nothing but a stolen access token. The attacker
 * texts a code to their own phone (me/phone/start), verifies it (me/phone/verify) and the account
 * signs in by SMS to them; on a phone-only account with two-factor they go on to set a password and
 * turn two-factor off. Each of those steps needs a fresh session (docs/step-up.md): on the stolen
 * token of a session past its STEP_UP_WINDOW_SECONDS they answer 403 STEP_UP_REQUIRED and the account
 * keeps its phone, its password and its two-factor.
 */
import { afterAll, describe, expect } from "vitest";
import type { SmsSimulator } from "@mteja/sms-sim";
import { it } from "./support/fixture.js";
import { RestClient, registerUser, type HttpResult, type TestApp } from "./support/app.js";
import { skipThisTarget } from "./support/database.js";
import { totpClock } from "./support/two-factor.js";
import { totpAt } from "./support/totp.js";
import { codeTexted, launchWithSmsSimulator, textsTo, uniquePhone } from "./support/sms.js";

/** The production default of STEP_UP_WINDOW_SECONDS: the attack runs just after it. */
const window = 300;

describe.skipIf(skipThisTarget)("account takeover from a stolen access token (issue 28, finding 1)", () => {
  const clock = totpClock();
  let t: TestApp;
  let sim: SmsSimulator;

  it.beforeAll(async ({ launch }) => {
    ({ t, sim } = await launchWithSmsSimulator(launch, { now: clock.now }));
  });
  afterAll(async () => {
    await sim?.close();
  });

  async function signInByPhone(client: RestClient, phone: ReturnType<typeof uniquePhone>): Promise<HttpResult> {
    const texted = textsTo(sim, phone.international).length;
    expect((await client.post("/api/v1/auth/phone/start", { phone: phone.local })).status).toBe(200);
    const code = await codeTexted(sim, phone.international, texted + 1);
    return client.post("/api/v1/auth/phone/verify", { phone: phone.local, code });
  }

  /** The owner verifies a phone on their account, on their own (fresh) session. */
  async function verifyOwnPhone(client: RestClient, token: string, phone: ReturnType<typeof uniquePhone>): Promise<void> {
    const before = textsTo(sim, phone.international).length;
    expect((await client.post("/api/v1/auth/me/phone/start", { phone: phone.local }, token)).status).toBe(200);
    const code = await codeTexted(sim, phone.international, before + 1);
    expect((await client.post("/api/v1/auth/me/phone/verify", { code }, token)).status).toBe(200);
  }

  /** A code the attacker received on their phone since `before` texts, else a guess. */
  async function attackerCode(phone: ReturnType<typeof uniquePhone>, before: number): Promise<string> {
    // Long enough for a text written by the request to reach the simulator (the outbox is nudged at once).
    await new Promise((resolve) => setTimeout(resolve, 300));
    const texts = textsTo(sim, phone.international);
    return texts.length > before ? /\b(\d{6})\b/.exec(texts[texts.length - 1]!.message)![1]! : "123456";
  }

  function expectStepUpRequired(step: string, answer: HttpResult): void {
    expect({ step, status: answer.status, code: answer.body?.error?.code }).toEqual({ step, status: 403, code: "STEP_UP_REQUIRED" });
  }

  it("a password account: the attacker's phone never becomes the verified phone, and it cannot sign in by SMS", async () => {
    const owner = new RestClient(t.url);
    const victim = await registerUser(owner);
    const ownPhone = uniquePhone();
    await verifyOwnPhone(owner, victim.accessToken, ownPhone);
    clock.advance(window + 1);

    const attacker = new RestClient(t.url);
    const stolen = victim.accessToken;
    const attackerPhone = uniquePhone();

    const start = await attacker.post("/api/v1/auth/me/phone/start", { phone: attackerPhone.local }, stolen);
    expectStepUpRequired("me/phone/start to the attacker's phone", start);
    const code = await attackerCode(attackerPhone, 0);
    expect(textsTo(sim, attackerPhone.international)).toHaveLength(0);
    expectStepUpRequired("me/phone/verify", await attacker.post("/api/v1/auth/me/phone/verify", { code }, stolen));
    // Nor can the attacker turn two-factor on (locking the owner out) or take a copy of the account.
    expectStepUpRequired("otp/setup", await attacker.post("/api/v1/auth/otp/setup", undefined, stolen));
    expectStepUpRequired("me/export", await attacker.get("/api/v1/auth/me/export", stolen));

    const me = await owner.get("/api/v1/auth/me", victim.accessToken);
    expect(me.body.data).toMatchObject({ phone: ownPhone.stored, phone_verified: true, otp_enabled: false });
    // The attacker's phone signs in to nothing of the victim's (phone sign-up makes a new account).
    const bySms = await signInByPhone(new RestClient(t.url), attackerPhone);
    expect(bySms.body.data.user?.id).not.toBe(victim.id);
  });

  it("a phone-only account with two-factor: no new phone, no password set, two-factor stays on", async () => {
    const owner = new RestClient(t.url);
    const ownPhone = uniquePhone();
    const signedUp = await signInByPhone(owner, ownPhone);
    expect(signedUp.status).toBe(200);
    const token = signedUp.body.data.access_token as string;
    const userId = signedUp.body.data.user.id as string;
    const setup = await owner.post("/api/v1/auth/otp/setup", undefined, token);
    expect(setup.status).toBe(200);
    expect((await owner.post("/api/v1/auth/otp/verify", { code: totpAt(setup.body.data.secret, clock.now()) }, token)).status).toBe(200);
    clock.advance(window + 1);

    const attacker = new RestClient(t.url);
    const attackerPhone = uniquePhone();

    // 1. A code to the attacker's phone.
    expectStepUpRequired("me/phone/start to the attacker's phone", await attacker.post("/api/v1/auth/me/phone/start", { phone: attackerPhone.local }, token));
    // 2. That phone verified on the account.
    const code = await attackerCode(attackerPhone, 0);
    expectStepUpRequired("me/phone/verify", await attacker.post("/api/v1/auth/me/phone/verify", { code }, token));
    // 3. A code to "the account's phone" (the attacker's, had step 2 worked) to set a password with.
    const before = textsTo(sim, attackerPhone.international).length;
    await attacker.post("/api/v1/auth/me/phone/start", {}, token);
    const smsCode = await attackerCode(attackerPhone, before);
    expectStepUpRequired(
      "me/password (first password, by sms_code)",
      await attacker.put("/api/v1/auth/me/password", { new_password: "the attacker's passphrase", sms_code: smsCode }, token),
    );
    // 4. Two-factor off with the same code.
    expectStepUpRequired("otp/disable (by sms_code)", await attacker.request("DELETE", "/api/v1/auth/otp/disable", { body: { sms_code: smsCode }, token }));

    expect(textsTo(sim, attackerPhone.international)).toHaveLength(0);
    const row = await t.deps.db.unscoped.user.findUniqueOrThrow({ where: { id: userId } });
    expect(row).toMatchObject({ phone: ownPhone.stored, phoneVerified: true, passwordHash: null, otpEnabled: true });
  });

  it("a code texted to a new phone while the session was fresh is not verified once it is not", async () => {
    const owner = new RestClient(t.url);
    const victim = await registerUser(owner);
    const newPhone = uniquePhone();
    expect((await owner.post("/api/v1/auth/me/phone/start", { phone: newPhone.local }, victim.accessToken)).status).toBe(200);
    const code = await codeTexted(sim, newPhone.international);
    clock.advance(window + 1);
    expectStepUpRequired("me/phone/verify", await owner.post("/api/v1/auth/me/phone/verify", { code }, victim.accessToken));
    expect((await owner.get("/api/v1/auth/me", victim.accessToken)).body.data.phone_verified).toBe(false);
  });

  /** The reset link mailed to `email`, if any, and the kinds of mail it got. */
  async function mailsTo(email: string) {
    const mails = await t.deps.db.unscoped.mailOutbox.findMany({ where: { toAddress: email }, orderBy: { createdAt: "asc" } });
    const link = mails.map((mail) => /https?:\/\/\S+\/(?:verify-email|reset-password)\?[^\s"<>]+/.exec(mail.textBody)?.[0]).filter(Boolean);
    return { kinds: mails.map((mail) => mail.kind), links: link.map((href) => new URL(href!)) };
  }

  async function waitForMail(email: string, kind: string): Promise<void> {
    for (let i = 0; i < 100; i++) {
      if ((await mailsTo(email)).kinds.includes(kind)) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`no ${kind} mail to ${email}`);
  }

  it("an account with a password and no email: the attacker cannot attach their address (it could reset the password)", async () => {
    const owner = new RestClient(t.url);
    const ownPhone = uniquePhone();
    const signedUp = await signInByPhone(owner, ownPhone);
    const token = signedUp.body.data.access_token as string;
    // The owner gives the phone-only account a password, on the fresh session (an sms_code proves it).
    const before = textsTo(sim, ownPhone.international).length;
    expect((await owner.post("/api/v1/auth/me/phone/start", {}, token)).status).toBe(200);
    const smsCode = await codeTexted(sim, ownPhone.international, before + 1);
    expect((await owner.put("/api/v1/auth/me/password", { new_password: "the owner's own passphrase", sms_code: smsCode }, token)).status).toBe(200);
    clock.advance(window + 1);

    const attackerEmail = `attacker-${Date.now()}-${Math.floor(Math.random() * 1e6)}@example.com`;
    expectStepUpRequired("me/email/start to the attacker's address", await new RestClient(t.url).post("/api/v1/auth/me/email/start", { email: attackerEmail }, token));
    expect((await mailsTo(attackerEmail)).kinds).toEqual([]);
  });

  it("a phone-only account: an email attached from a stolen token cannot give it a first password by reset", async () => {
    const owner = new RestClient(t.url);
    const ownPhone = uniquePhone();
    const signedUp = await signInByPhone(owner, ownPhone);
    const token = signedUp.body.data.access_token as string;
    const userId = signedUp.body.data.user.id as string;
    clock.advance(window + 1);

    // The contract lets a phone-only account add its first email without a fresh session.
    const attacker = new RestClient(t.url);
    const attackerEmail = `attacker-${Date.now()}-${Math.floor(Math.random() * 1e6)}@example.com`;
    expect((await attacker.post("/api/v1/auth/me/email/start", { email: attackerEmail }, token)).status).toBe(200);
    const [changeLink] = (await mailsTo(attackerEmail)).links;
    expect((await attacker.post("/api/v1/auth/me/email/verify", { token: changeLink!.searchParams.get("token") }, token)).status).toBe(200);

    // forgot-password answers as always, but mails no link that could set a first password.
    expect((await attacker.post("/api/v1/auth/forgot-password", { email: attackerEmail })).status).toBe(200);
    await waitForMail(attackerEmail, "noPasswordToReset");
    const mailed = await mailsTo(attackerEmail);
    expect(mailed.kinds).not.toContain("resetPassword");
    expect(mailed.links.filter((link) => link.pathname.endsWith("/reset-password"))).toEqual([]);
    const row = await t.deps.db.unscoped.user.findUniqueOrThrow({ where: { id: userId } });
    expect(row).toMatchObject({ phone: ownPhone.stored, phoneVerified: true, passwordHash: null });
  });
});
