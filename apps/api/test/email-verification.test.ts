/**
 * Email verification through the real HTTP surface and a real SMTP server (register;
 * docs/sessions.md#emailed-tokens): the mail registration writes, verify-email, resend, expiry,
 * tenant-specific links and sender names, over REST and tRPC.
 */
import { TRPCClientError } from "@trpc/client";
import { afterAll, describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { startSmtpReceiver, type ReceivedMail, type SmtpReceiver } from "@mteja/test-support/smtp-receiver";
import { adminKey, RestClient, registerUser, trpcClient, uniqueEmail, type TestApp } from "./support/app.js";
import { skipThisTarget } from "./support/database.js";

const appUrl = "https://shop.example.co.ke/app";

function linkIn(mail: ReceivedMail, page: string): URL {
  const match = new RegExp(`https?://\\S+/${page}\\?[^\\s"<>]+`).exec(mail.text);
  if (!match) throw new Error(`No ${page} link in mail "${mail.subject}"`);
  return new URL(match[0]);
}

function tokenOf(link: URL): { token: string; email: string } {
  return { token: link.searchParams.get("token") ?? "", email: link.searchParams.get("email") ?? "" };
}

describe.skipIf(skipThisTarget)("email verification", () => {
  let t: TestApp;
  let receiver: SmtpReceiver;
  let client: RestClient;
  let offsetMs = 0;

  it.beforeAll(async ({ launch }) => {
    receiver = await startSmtpReceiver();
    t = await launch.app({ SMTP_URL: receiver.url, APP_URL: appUrl, MAIL_FROM: "hello@mteja.test" }, { now: () => new Date(Date.now() + offsetMs) });
    client = new RestClient(t.url);
  });
  afterAll(async () => {
    await receiver?.stop();
  });

  const verificationMailTo = (email: string, nth = 0) =>
    waitForNth(receiver, (mail) => mail.to.includes(email) && mail.subject.startsWith("Confirm your email"), nth);

  it("registration sends a verification mail from the shop, with a link to APP_URL", async () => {
    const user = await registerUser(client, { name: "Achieng Otieno" });
    const mail = await verificationMailTo(user.email);
    expect(mail.subject).toBe("Confirm your email for Mteja Shop");
    expect(mail.from).toEqual({ name: "Mteja Shop", address: "hello@mteja.test" });
    expect(mail.to).toEqual([user.email]);
    expect(mail.text).toContain("Achieng Otieno");
    const link = linkIn(mail, "verify-email");
    expect(`${link.origin}${link.pathname}`).toBe(`${appUrl}/verify-email`);
    expect(link.searchParams.get("token")).toMatch(/^[0-9a-f]{64}$/);
    expect(link.searchParams.get("email")).toBe(user.email);
    // The token is stored only as its hash.
    const rows = await t.deps.db.unscoped("test").oneTimeToken.findMany({ where: { userId: user.id } });
    expect(rows).toHaveLength(1);
    expect(rows[0]!.purpose).toBe("verify_email");
    expect(rows[0]!.tokenHash).not.toBe(link.searchParams.get("token"));
    expect(rows[0]!.expiresAt.getTime() - rows[0]!.createdAt.getTime()).toBe(24 * 3600 * 1000);
  });

  it("verify-email with the link's token sets email_verified; the token then no longer works", async () => {
    const user = await registerUser(client);
    const me0 = await client.get("/api/v1/auth/me", user.accessToken);
    expect(me0.body.data.email_verified).toBe(false);

    const { token, email } = tokenOf(linkIn(await verificationMailTo(user.email), "verify-email"));
    const verified = await client.post("/api/v1/auth/verify-email", { token, email });
    expect(verified.status).toBe(200);
    expect(verified.body).toEqual({ success: true, message: "Your email address has been verified." });

    const me = await client.get("/api/v1/auth/me", user.accessToken);
    expect(me.body.data.email_verified).toBe(true);

    const again = await client.post("/api/v1/auth/verify-email", { token, email });
    expect(again.status).toBe(400);
    expect(again.body.success).toBe(false);
    expect(again.body.error.code).toBe("INVALID_TOKEN");
  });

  it("refuses a token for another email, a wrong token, a malformed token; missing fields are 422", async () => {
    const alice = await registerUser(client);
    const bob = await registerUser(client);
    const aliceToken = tokenOf(linkIn(await verificationMailTo(alice.email), "verify-email")).token;

    for (const body of [
      { token: aliceToken, email: bob.email },
      { token: "0".repeat(64), email: alice.email },
      { token: "not-a-token", email: alice.email },
      { token: aliceToken.toUpperCase() + "00", email: alice.email },
    ]) {
      const result = await client.post("/api/v1/auth/verify-email", body);
      expect(result.status, JSON.stringify(body)).toBe(400);
      expect(result.body.error.code).toBe("INVALID_TOKEN");
    }
    const missing = await client.post("/api/v1/auth/verify-email", { email: alice.email });
    expect(missing.status).toBe(422);
    expect(missing.body.error.code).toBe("VALIDATION_ERROR");
    const noTenant = await new RestClient(t.url, "").post("/api/v1/auth/verify-email", { token: aliceToken, email: alice.email });
    expect(noTenant.status).toBe(400);
    expect(noTenant.body.error.code).toBe("TENANT_REQUIRED");

    // None of the refusals spent Alice's token, and the email matches case-insensitively.
    const ok = await client.post("/api/v1/auth/verify-email", { token: aliceToken, email: alice.email.toUpperCase() });
    expect(ok.status).toBe(200);
    const bobMe = await client.get("/api/v1/auth/me", bob.accessToken);
    expect(bobMe.body.data.email_verified).toBe(false);
  });

  it("resend sends a new link and the earlier one stops working; verified accounts get no mail", async () => {
    const user = await registerUser(client);
    const first = tokenOf(linkIn(await verificationMailTo(user.email), "verify-email"));

    const resent = await client.post("/api/v1/auth/verify-email/resend", undefined, user.accessToken);
    expect(resent.status).toBe(200);
    expect(resent.body).toEqual({ success: true, message: "A new verification email has been sent. Please check your inbox." });
    const second = tokenOf(linkIn(await verificationMailTo(user.email, 1), "verify-email"));
    expect(second.token).not.toBe(first.token);

    const old = await client.post("/api/v1/auth/verify-email", first);
    expect(old.status).toBe(400);
    expect(old.body.error.code).toBe("INVALID_TOKEN");
    expect((await client.post("/api/v1/auth/verify-email", second)).status).toBe(200);

    const already = await client.post("/api/v1/auth/verify-email/resend", undefined, user.accessToken);
    expect(already.status).toBe(200);
    expect(already.body).toEqual({ success: true, message: "Your email address is already verified." });
    await settle(t);
    expect(receiver.mails.filter((mail) => mail.to.includes(user.email))).toHaveLength(2);
  });

  it("resend is Auth Required", async () => {
    const none = await client.post("/api/v1/auth/verify-email/resend");
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe("AUTH_REQUIRED");
    const bad = await client.post("/api/v1/auth/verify-email/resend", undefined, "not.a.jwt");
    expect(bad.status).toBe(401);
    expect(bad.body.error.code).toBe("INVALID_TOKEN");
  });

  it("resend is capped at 5 mails per account per hour, with the same answer beyond", async () => {
    const user = await registerUser(client);
    await verificationMailTo(user.email);
    for (let i = 0; i < 6; i++) {
      const result = await client.post("/api/v1/auth/verify-email/resend", undefined, user.accessToken);
      expect(result.status).toBe(200);
      expect(result.body.message).toBe("A new verification email has been sent. Please check your inbox.");
    }
    await verificationMailTo(user.email, 5);
    await settle(t);
    // The registration mail plus 5 resends; the sixth resend wrote nothing.
    expect(receiver.mails.filter((mail) => mail.to.includes(user.email))).toHaveLength(6);
    expect(await t.deps.db.unscoped("test").mailOutbox.count({ where: { toAddress: user.email } })).toBe(6);
  });

  it("a link expires after 24 hours", async () => {
    const user = await registerUser(client);
    const link = tokenOf(linkIn(await verificationMailTo(user.email), "verify-email"));
    offsetMs = 24 * 3600 * 1000 + 1000;
    try {
      const result = await client.post("/api/v1/auth/verify-email", link);
      expect(result.status).toBe(400);
      expect(result.body.error.code).toBe("INVALID_TOKEN");
    } finally {
      offsetMs = 0;
    }
    // Just before the end it still works.
    offsetMs = 24 * 3600 * 1000 - 60_000;
    try {
      expect((await client.post("/api/v1/auth/verify-email", link)).status).toBe(200);
    } finally {
      offsetMs = 0;
    }
  });

  it("uses the tenant's display name and app URL, and a token works only in its own tenant", async () => {
    const admin = new RestClient(t.url, "");
    const created = await admin.request("POST", "/api/v1/admin/tenants", {
      token: adminKey,
      body: { id: "duka-la-mama", name: "duka", settings: { displayName: "Duka la Mama", appUrl: "https://duka.example.com/" } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const shop = new RestClient(t.url, "duka-la-mama");
    const user = await registerUser(shop);
    const mail = await verificationMailTo(user.email);
    expect(mail.from?.name).toBe("Duka la Mama");
    expect(mail.subject).toBe("Confirm your email for Duka la Mama");
    const link = linkIn(mail, "verify-email");
    expect(`${link.origin}${link.pathname}`).toBe("https://duka.example.com/verify-email");

    const elsewhere = await client.post("/api/v1/auth/verify-email", tokenOf(link));
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.error.code).toBe("INVALID_TOKEN");
    expect((await shop.post("/api/v1/auth/verify-email", tokenOf(link))).status).toBe(200);
  });

  it("with requireVerifiedEmail, login and refresh both answer 403 EMAIL_NOT_VERIFIED until the email is verified", async () => {
    const created = await new RestClient(t.url, "").request("POST", "/api/v1/admin/tenants", {
      token: adminKey,
      body: { id: "verified-only", name: "Verified only", settings: { requireVerifiedEmail: true } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const shop = new RestClient(t.url, "verified-only");
    const user = await registerUser(shop);
    const cookie = shop.cookie!;

    const login = await new RestClient(t.url, "verified-only").post("/api/v1/auth/login", { email: user.email, password: user.password });
    expect(login.status).toBe(403);
    expect(login.body.error.code).toBe("EMAIL_NOT_VERIFIED");
    const refused = await shop.post("/api/v1/auth/refresh");
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("EMAIL_NOT_VERIFIED");
    expect(refused.body.data).toBeUndefined();
    // The cookie is neither rotated nor cleared: it works once the address is verified.
    expect(refused.cookies.refresh_token).toBeUndefined();
    expect(shop.cookie).toBe(cookie);

    expect((await shop.post("/api/v1/auth/verify-email", tokenOf(linkIn(await verificationMailTo(user.email), "verify-email")))).status).toBe(200);
    const refreshed = await shop.post("/api/v1/auth/refresh");
    expect(refreshed.status).toBe(200);
    expect(shop.cookie).not.toBe(cookie);
    expect((await shop.get("/api/v1/auth/me", refreshed.body.data.access_token)).status).toBe(200);
    expect((await new RestClient(t.url, "verified-only").post("/api/v1/auth/login", { email: user.email, password: user.password })).status).toBe(200);
  });

  it("works over tRPC: verifyEmail and resendVerificationEmail, INVALID_TOKEN as 400", async () => {
    const user = await registerUser(client);
    const headers = { authorization: `Bearer ${user.accessToken}`, "x-tenant-id": "default" };
    const trpc = trpcClient(t.url, () => headers);
    const first = tokenOf(linkIn(await verificationMailTo(user.email), "verify-email"));

    const resent = await trpc.auth.resendVerificationEmail.mutate();
    expect(resent).toEqual({ success: true, message: "A new verification email has been sent. Please check your inbox." });
    const second = tokenOf(linkIn(await verificationMailTo(user.email, 1), "verify-email"));

    const error = await trpc.auth.verifyEmail.mutate(first).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TRPCClientError);
    const shape = (error as TRPCClientError<any>).shape;
    expect(shape.error.code).toBe("INVALID_TOKEN");
    expect((error as TRPCClientError<any>).data.httpStatus).toBe(400);

    expect(await trpc.auth.verifyEmail.mutate(second)).toEqual({ success: true, message: "Your email address has been verified." });
    const me = await trpc.profile.me.query();
    expect(me.data.email_verified).toBe(true);
  });

  it("registering over tRPC sends the mail too", async () => {
    const trpc = trpcClient(t.url, () => ({ "x-tenant-id": "default" }));
    const email = uniqueEmail("trpc");
    await trpc.auth.register.mutate({ name: "Kiprono Langat", email, password: "correct horse battery" });
    const mail = await verificationMailTo(email);
    expect(linkIn(mail, "verify-email").searchParams.get("email")).toBe(email);
  });
});

/** The nth (0-based) mail matching, waiting for it if needed. */
async function waitForNth(receiver: SmtpReceiver, match: (mail: ReceivedMail) => boolean, nth: number): Promise<ReceivedMail> {
  return receiver.waitForMail((mail) => receiver.mails.filter(match)[nth] === mail, 10_000);
}

/** Waits until the outbox has nothing left to send, so "no further mail" can be asserted. */
async function settle(t: TestApp): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const pending = await t.deps.db.unscoped("test").mailOutbox.count({ where: { sentAt: null } });
    if (pending === 0) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("outbox did not drain");
}
