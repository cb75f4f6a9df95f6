/**
 * The customer's data rights through HTTP, with a real SMTP receiver and the Daraja simulator
 * (docs/data-rights.md): the export holds the profile, addresses, sessions, payments, security
 * events, passkeys and linked accounts (data-rights-sign-in.test.ts fills the last two); erasure needs
 * the password (and the code with two-factor on), removes the personal data, keeps payments with the
 * phone masked, cancels unsent mail, frees the email; both send a notice.
 */
import { outboxes } from "@mteja/db";
import { afterAll, describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { startSmtpReceiver, type SmtpReceiver } from "@mteja/test-support/smtp-receiver";
import { adminKey, RestClient, registerUser, trpcClient } from "./support/app.js";
import { skipThisTarget } from "./support/database.js";
import { addressBody } from "./support/addresses.js";
import type { DarajaApp } from "./support/daraja.js";
import { totpAt, wrongCodeAt } from "./support/totp.js";
import { enrolledUser, totpClock } from "./support/two-factor.js";
import { waitFor } from "./support/wait.js";

const clock = totpClock();

const address = addressBody();

describe.skipIf(skipThisTarget)("data rights: export and erasure", () => {
  let t: DarajaApp;
  let receiver: SmtpReceiver;
  let client: RestClient;

  it.beforeAll(async ({ launch }) => {
    receiver = await startSmtpReceiver();
    const sim = await launch.sim();
    t = await launch.momo({ darajaUrl: sim.url, now: clock.now, env: { SMTP_URL: receiver.url } });
    client = new RestClient(t.url);
  });
  afterAll(async () => {
    await receiver?.stop();
  });

  const mailTo = (email: string, subject: RegExp) => receiver.waitForMail((mail) => mail.to.includes(email) && subject.test(mail.subject), 10_000);

  /** A customer with an address and a settled payment. */
  async function customerWithHistory() {
    const user = await registerUser(client);
    expect((await client.post("/api/v1/addresses", address, user.accessToken)).status).toBe(201);
    const pushed = await client.post("/api/momo/stkpush", { phone: "0712345678", amount: 150, reference: "ORDER7", description: "Sukuma" }, user.accessToken);
    expect(pushed.status).toBe(200);
    await waitFor(async () => {
      const payment = await client.get(`/api/momo/payments/${pushed.body.data.checkoutRequestId}`, user.accessToken);
      return payment.body.data.payment.status === "SUCCESS" ? payment : undefined;
    });
    clock.advance(1);
    return user;
  }

  it("exports everything held on the customer, not cached, and tells them by mail", async () => {
    const user = await customerWithHistory();
    const exported = await client.get("/api/v1/auth/me/export", user.accessToken);
    expect(exported.status).toBe(200);
    expect(exported.headers.get("cache-control")).toBe("no-store");
    const data = exported.body.data;
    const kinds = ["addresses", "identities", "passkeys", "payments", "profile", "security_events", "sessions"];
    expect(Object.keys(data).sort()).toEqual(kinds);
    expect([data.passkeys, data.identities]).toEqual([[], []]);
    expect(data.profile).toMatchObject({ id: user.id, email: user.email, name: user.name, otp_enabled: false, created_at: expect.any(String) });
    expect(data.addresses).toEqual([
      { id: expect.any(String), label: "Home", recipient_name: "Wanjiku Kamau", phone: "254712345678", street: "Ngong Road, Apt 4B", county: "nairobi", town: "Kilimani", is_default: true, landmark: "Opposite Prestige Plaza", coordinates: { lat: -1.2921, lng: 36.8219 } },
    ]);
    expect(data.sessions).toEqual([expect.objectContaining({ current: true, ip: "127.0.0.1", revoked_at: null })]);
    expect(data.payments).toEqual([
      expect.objectContaining({ channel: "stk", status: "SUCCESS", amount: 150, phone: "254712345678", reference: "ORDER7", description: "Sukuma", mpesa_receipt: expect.any(String) }),
    ]);
    expect(data.security_events.map((e: { type: string }) => e.type)).toEqual(["account.exported"]);
    const notice = await mailTo(user.email, /data was downloaded/);
    expect(notice.text).toContain("was downloaded on");
  });

  it("writes both notices in Swahili for a customer whose language is Swahili", async () => {
    const user = await registerUser(client);
    await t.deps.db.unscoped("test").user.update({ where: { id: user.id }, data: { preferences: { locale: "sw" } } });
    expect((await client.get("/api/v1/auth/me/export", user.accessToken)).status).toBe(200);
    const notice = await mailTo(user.email, /^Nakala ya data yako/);
    expect(notice.text).toContain("ilipakuliwa");
    // The deletion notice too, though the account's language is erased with it.
    expect((await client.request("DELETE", "/api/v1/auth/me", { body: { password: user.password }, token: user.accessToken })).status).toBe(200);
    const deleted = await mailTo(user.email, /^Akaunti yako ya .* imefutwa$/);
    expect(deleted.text).toContain("kama sheria inavyotaka");
  });

  it("erases the account: old credentials fail, payments stay with the phone masked, the email registers again", async () => {
    const user = await customerWithHistory();
    const other = await new RestClient(t.url).post("/api/v1/auth/login", { email: user.email, password: user.password });
    // A mail still waiting in the outbox for this customer (due later) is cancelled by the erasure.
    await t.deps.db.transaction(t.deps.db.forTenant("default"), (tx) =>
      outboxes.enqueueMail(
        tx,
        {
          tenantId: "default",
          to: user.email,
          fromName: "Shop",
          kind: "passwordChanged",
          subject: "Pending",
          text: "x",
          html: "x",
        },
        new Date(clock.now().getTime() + 3_600_000),
      ),
    );

    const wrong = await client.request("DELETE", "/api/v1/auth/me", { body: { password: "not my password" }, token: user.accessToken });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe("INVALID_CREDENTIALS");

    const erased = await client.request("DELETE", "/api/v1/auth/me", { body: { password: user.password }, token: user.accessToken });
    expect(erased.status).toBe(200);
    expect(erased.body).toEqual({ success: true, data: null, message: "Account deleted." });
    expect(erased.cookies.refresh_token?.value).toBe("");

    // Every credential of the account is gone.
    expect((await client.get("/api/v1/auth/me", user.accessToken)).status).toBe(401);
    expect((await client.get("/api/v1/auth/me", other.body.data.access_token)).status).toBe(401);
    expect((await client.get("/api/v1/auth/me/export", user.accessToken)).body.error.code).toBe("INVALID_TOKEN");
    const login = await client.post("/api/v1/auth/login", { email: user.email, password: user.password });
    expect(login.status).toBe(401);
    expect(login.body.error.code).toBe("INVALID_CREDENTIALS");

    // What stays: the payment, with the phone masked; the user row, without personal data.
    const db = t.deps.db.unscoped("test");
    const payments = await db.payment.findMany({ where: { userId: user.id } });
    expect(payments.map((p) => [p.amount, p.status, p.phone, p.paidPhone])).toEqual([[150, "SUCCESS", "254******678", "254******678"]]);
    const row = await db.user.findUniqueOrThrow({ where: { id: user.id } });
    expect(row).toMatchObject({ name: null, phone: null, phoneVerified: false, passwordHash: null, otpSecretEnc: null, preferences: {}, deletedAt: expect.any(Date) });
    expect(row.email).not.toContain(user.email.split("@")[0]!);
    expect(await db.address.count({ where: { userId: user.id } })).toBe(0);
    expect(await db.session.count({ where: { userId: user.id } })).toBe(0);
    expect(await db.oneTimeToken.count({ where: { userId: user.id } })).toBe(0);
    const unsent = await db.mailOutbox.findMany({ where: { toAddress: user.email, sentAt: null } });
    expect(unsent.map((m) => m.kind).filter((kind) => kind !== "accountDeleted")).toEqual([]);
    expect((await db.securityEvent.findMany({ where: { userId: user.id } })).map((e) => e.type)).toEqual(["account.deleted"]);

    const notice = await mailTo(user.email, /account was deleted/);
    expect(notice.text).toContain("Records of your payments are kept");

    // The operator's audit shows the erasure.
    const audit = await client.request("GET", "/api/v1/admin/audit?tenant=default&limit=100", { headers: { authorization: `Bearer ${adminKey}` } });
    expect(audit.body.data.security_events).toContainEqual(expect.objectContaining({ type: "account.deleted", user_id: user.id }));

    // The email is free again.
    const again = await new RestClient(t.url).post("/api/v1/auth/register", { name: "Wanjiku Again", email: user.email, password: "another good password" });
    expect(again.status).toBe(201);
    expect(again.body.data.user.id).not.toBe(user.id);
  });

  it("with two-factor on, needs the code: missing is 422 on code, wrong is 401 INVALID_OTP", async () => {
    const user = await enrolledUser(t.url, clock);
    const missing = await client.request("DELETE", "/api/v1/auth/me", { body: { password: user.password }, token: user.accessToken });
    expect(missing.status).toBe(422);
    expect(missing.body.error.details).toEqual([expect.objectContaining({ path: "code" })]);
    const wrong = await client.request("DELETE", "/api/v1/auth/me", { body: { password: user.password, code: wrongCodeAt(user.secret, clock.now()) }, token: user.accessToken });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe("INVALID_OTP");
    const wrongPassword = await client.request("DELETE", "/api/v1/auth/me", { body: { password: "nope nope nope", code: totpAt(user.secret, clock.now()) }, token: user.accessToken });
    expect(wrongPassword.body.error.code).toBe("INVALID_CREDENTIALS");
    clock.advance(30);
    const erased = await client.request("DELETE", "/api/v1/auth/me", { body: { password: user.password, code: totpAt(user.secret, clock.now()) }, token: user.accessToken });
    expect(erased.status).toBe(200);
    expect((await t.deps.db.unscoped("test").recoveryCode.count({ where: { userId: user.id } }))).toBe(0);
  });

  it("accepts a recovery code in place of the authenticator code, and works over tRPC", async () => {
    const user = await enrolledUser(t.url, clock);
    const trpc = trpcClient(t.url, () => ({ "x-tenant-id": "default", authorization: `Bearer ${user.accessToken}` }));
    const exported = await trpc.dataRights.exportMyData.query();
    expect(exported.data.profile.otp_enabled).toBe(true);
    expect(await trpc.dataRights.eraseMyAccount.mutate({ password: user.password, code: user.recoveryCodes[0] })).toEqual({ success: true, data: null, message: "Account deleted." });
    expect((await client.get("/api/v1/auth/me", user.accessToken)).status).toBe(401);
  });
});
