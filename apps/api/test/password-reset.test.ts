/**
 * Password reset by emailed link through the real HTTP surface and a real SMTP server
 * (forgot-password / reset-password; docs/sessions.md#emailed-tokens, docs/limits.md):
 * no account enumeration, single-use expiring tokens, sessions ended, security notices, the mail
 * cap, over REST and tRPC.
 */
import { TRPCClientError } from "@trpc/client";
import { afterAll, describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { startSmtpReceiver, type ReceivedMail, type SmtpReceiver } from "@mteja/test-support/smtp-receiver";
import { adminKey, RestClient, registerUser, trpcClient, uniqueEmail, type TestApp } from "./support/app.js";
import { skipThisTarget } from "./support/database.js";

const forgotAnswer = { success: true, message: "If an account exists for this email, a reset link has been sent." };
const resetAnswer = { success: true, message: "Your password has been reset. Please log in with your new password." };
const newPassword = "a brand new passphrase";

function linkIn(mail: ReceivedMail, page: string): URL {
  const match = new RegExp(`https?://\\S+/${page}\\?[^\\s"<>]+`).exec(mail.text);
  if (!match) throw new Error(`No ${page} link in mail "${mail.subject}"`);
  return new URL(match[0]);
}

describe.skipIf(skipThisTarget)("password reset", () => {
  let t: TestApp;
  let receiver: SmtpReceiver;
  let client: RestClient;
  let offsetMs = 0;

  it.beforeAll(async ({ launch }) => {
    receiver = await startSmtpReceiver();
    t = await launch.app({ SMTP_URL: receiver.url, APP_URL: "https://shop.example.co.ke" }, { now: () => new Date(Date.now() + offsetMs) });
    client = new RestClient(t.url);
  });
  afterAll(async () => {
    await receiver?.stop();
  });

  const mailsTo = (email: string, subject?: RegExp) =>
    receiver.mails.filter((mail) => mail.to.includes(email) && (!subject || subject.test(mail.subject)));

  const nthMail = (email: string, subject: RegExp, nth = 0) =>
    receiver.waitForMail((mail) => mailsTo(email, subject)[nth] === mail, 10_000);

  const resetMail = (email: string, nth = 0) => nthMail(email, /^Reset your /, nth);

  async function requestReset(email: string, via: RestClient = client) {
    const result = await via.post("/api/v1/auth/forgot-password", { email });
    expect(result.status).toBe(200);
    expect(result.body).toEqual(forgotAnswer);
    return result;
  }

  async function resetLink(email: string, nth = 0) {
    const link = linkIn(await resetMail(email, nth), "reset-password");
    return { token: link.searchParams.get("token") ?? "", email: link.searchParams.get("email") ?? "" };
  }

  it("forgot-password answers the same for known and unknown emails, and mails only the known one", async () => {
    const user = await registerUser(client);
    const unknown = uniqueEmail("nobody");
    const known = await client.post("/api/v1/auth/forgot-password", { email: user.email });
    const missing = await client.post("/api/v1/auth/forgot-password", { email: unknown });
    expect(known.status).toBe(200);
    expect(missing.status).toBe(known.status);
    expect(known.body).toEqual(forgotAnswer);
    expect(missing.body).toEqual(known.body);
    const headerNames = (r: typeof known) => [...r.headers.keys()].filter((name) => name !== "date").sort();
    expect(headerNames(missing)).toEqual(headerNames(known));
    expect(missing.headers.get("content-length")).toBe(known.headers.get("content-length"));

    const mail = await resetMail(user.email);
    expect(mail.subject).toBe("Reset your Mteja Shop password");
    expect(mail.from?.name).toBe("Mteja Shop");
    const link = linkIn(mail, "reset-password");
    expect(`${link.origin}${link.pathname}`).toBe("https://shop.example.co.ke/reset-password");
    expect(link.searchParams.get("token")).toMatch(/^[0-9a-f]{64}$/);
    expect(link.searchParams.get("email")).toBe(user.email);
    expect(mail.text).toContain("30 minutes");

    await settle(t);
    expect(mailsTo(unknown)).toHaveLength(0);
    expect(await t.deps.db.unscoped("test").mailOutbox.count({ where: { toAddress: unknown } })).toBe(0);
    const stored = await t.deps.db.unscoped("test").oneTimeToken.findFirst({ where: { userId: user.id, purpose: "reset_password" } });
    expect(stored?.tokenHash).not.toBe(link.searchParams.get("token"));
    expect(stored!.expiresAt.getTime() - stored!.createdAt.getTime()).toBe(30 * 60 * 1000);
  });

  it("reset through the mailed link: new password works, old one fails, every session ends, a notice is mailed", async () => {
    const user = await registerUser(client);
    const otherDevice = new RestClient(t.url);
    const login = await otherDevice.post("/api/v1/auth/login", { email: user.email, password: user.password });
    expect(login.status).toBe(200);
    const oldAccess = login.body.data.access_token as string;
    const oldCookie = otherDevice.cookie;
    expect(oldCookie).toBeTruthy();

    await requestReset(user.email, new RestClient(t.url));
    const link = await resetLink(user.email);
    const reset = await new RestClient(t.url).post("/api/v1/auth/reset-password", { ...link, new_password: newPassword });
    expect(reset.status).toBe(200);
    expect(reset.body).toEqual(resetAnswer);

    const fresh = new RestClient(t.url);
    expect((await fresh.post("/api/v1/auth/login", { email: user.email, password: newPassword })).status).toBe(200);
    const oldLogin = await fresh.post("/api/v1/auth/login", { email: user.email, password: user.password });
    expect(oldLogin.status).toBe(401);
    expect(oldLogin.body.error.code).toBe("INVALID_CREDENTIALS");

    for (const token of [oldAccess, user.accessToken]) {
      const me = await client.get("/api/v1/auth/me", token);
      expect(me.status).toBe(401);
      expect(me.body.error.code).toBe("INVALID_TOKEN");
    }
    const refreshed = await otherDevice.post("/api/v1/auth/refresh");
    expect(refreshed.status).toBe(401);
    expect(refreshed.body.error.code).toBe("INVALID_TOKEN");

    const notice = await nthMail(user.email, /password was reset$/);
    expect(notice.subject).toBe("Your Mteja Shop password was reset");
    expect(notice.from?.name).toBe("Mteja Shop");
    // Following the link proved the address.
    const relogin = await fresh.post("/api/v1/auth/login", { email: user.email, password: newPassword });
    const me = await fresh.get("/api/v1/auth/me", relogin.body.data.access_token);
    expect(me.body.data.email_verified).toBe(true);
  });

  it("a reset token works once, and a successful reset spends the user's other reset links", async () => {
    const user = await registerUser(client);
    await requestReset(user.email);
    const first = await resetLink(user.email, 0);
    await requestReset(user.email);
    const second = await resetLink(user.email, 1);
    expect(second.token).not.toBe(first.token);

    expect((await client.post("/api/v1/auth/reset-password", { ...second, new_password: newPassword })).status).toBe(200);
    for (const link of [second, first]) {
      const again = await client.post("/api/v1/auth/reset-password", { ...link, new_password: "yet another passphrase" });
      expect(again.status).toBe(400);
      expect(again.body).toMatchObject({ success: false, error: { code: "INVALID_TOKEN" } });
    }
    const login = await client.post("/api/v1/auth/login", { email: user.email, password: newPassword });
    expect(login.status).toBe(200);
  });

  it("two resets racing with one token: exactly one succeeds", async () => {
    const user = await registerUser(client);
    await requestReset(user.email);
    const link = await resetLink(user.email);
    const results = await Promise.all([
      client.post("/api/v1/auth/reset-password", { ...link, new_password: "first racing passphrase" }),
      client.post("/api/v1/auth/reset-password", { ...link, new_password: "second racing passphrase" }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
  });

  it("an expired reset token is refused (30 minutes)", async () => {
    const user = await registerUser(client);
    await requestReset(user.email);
    const link = await resetLink(user.email);
    offsetMs = 30 * 60 * 1000 + 1000;
    try {
      const result = await client.post("/api/v1/auth/reset-password", { ...link, new_password: newPassword });
      expect(result.status).toBe(400);
      expect(result.body.error.code).toBe("INVALID_TOKEN");
    } finally {
      offsetMs = 0;
    }
    const login = await client.post("/api/v1/auth/login", { email: user.email, password: user.password });
    expect(login.status).toBe(200);
  });

  it("refuses a token with another email, in another tenant, or wrong; validation errors are 422", async () => {
    const user = await registerUser(client);
    const other = await registerUser(client);
    await requestReset(user.email);
    const link = await resetLink(user.email);

    const created = await new RestClient(t.url, "").request("POST", "/api/v1/admin/tenants", {
      token: adminKey,
      body: { id: "soko-huru", name: "Soko Huru" },
    });
    expect(created.status).toBe(200);
    // Same email registered in another shop: still not that account's token.
    const elsewhere = new RestClient(t.url, "soko-huru");
    await registerUser(elsewhere, { email: user.email });

    for (const [via, body] of [
      [client, { ...link, email: other.email }],
      [elsewhere, link],
      [client, { ...link, token: "f".repeat(64) }],
      [client, { ...link, token: "xyz" }],
    ] as const) {
      const result = await via.post("/api/v1/auth/reset-password", { ...body, new_password: newPassword });
      expect(result.status, JSON.stringify(body)).toBe(400);
      expect(result.body.error.code).toBe("INVALID_TOKEN");
    }
    for (const body of [{ ...link }, { ...link, new_password: "short" }, { email: link.email, new_password: newPassword }]) {
      const result = await client.post("/api/v1/auth/reset-password", body);
      expect(result.status).toBe(422);
      expect(result.body.error.code).toBe("VALIDATION_ERROR");
    }
    const badEmail = await client.post("/api/v1/auth/forgot-password", { email: "not an email" });
    expect(badEmail.status).toBe(422);
    expect(badEmail.body.error.code).toBe("VALIDATION_ERROR");

    // None of that spent the token.
    expect((await client.post("/api/v1/auth/reset-password", { ...link, new_password: newPassword })).status).toBe(200);
  });

  it("changing the password mails a notice", async () => {
    const user = await registerUser(client, { name: "Njeri Wambui" });
    const changed = await client.put("/api/v1/auth/me/password", { current_password: user.password, new_password: newPassword }, user.accessToken);
    expect(changed.status).toBe(200);
    const notice = await nthMail(user.email, /password was changed$/);
    expect(notice.subject).toBe("Your Mteja Shop password was changed");
    expect(notice.text).toContain("Njeri Wambui");
    expect(notice.text).toContain("East Africa Time");
  });

  it("caps reset mails at 5 per account per hour; the answer stays the same", async () => {
    const user = await registerUser(client);
    for (let i = 0; i < 6; i++) await requestReset(user.email);
    await resetMail(user.email, 4);
    await settle(t);
    expect(mailsTo(user.email, /^Reset your /)).toHaveLength(5);
    expect(await t.deps.db.unscoped("test").oneTimeToken.count({ where: { userId: user.id, purpose: "reset_password" } })).toBe(5);
  });

  it("works over tRPC: forgotPassword and resetPassword, INVALID_TOKEN as 400", async () => {
    const user = await registerUser(client);
    const trpc = trpcClient(t.url, () => ({ "x-tenant-id": "default" }));
    expect(await trpc.auth.forgotPassword.mutate({ email: user.email })).toEqual(forgotAnswer);
    expect(await trpc.auth.forgotPassword.mutate({ email: uniqueEmail("ghost") })).toEqual(forgotAnswer);
    const link = await resetLink(user.email);

    expect(await trpc.auth.resetPassword.mutate({ ...link, new_password: newPassword })).toEqual(resetAnswer);
    const error = await trpc.auth.resetPassword.mutate({ ...link, new_password: newPassword }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TRPCClientError);
    expect((error as TRPCClientError<any>).shape.error.code).toBe("INVALID_TOKEN");
    expect((error as TRPCClientError<any>).data.httpStatus).toBe(400);

    const login = await client.post("/api/v1/auth/login", { email: user.email, password: newPassword });
    expect(login.status).toBe(200);
  });
});

/** Waits until the outbox has nothing left to send and no reset write is still in flight. */
async function settle(t: TestApp): Promise<void> {
  for (let i = 0; i < 100; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const pending = await t.deps.db.unscoped("test").mailOutbox.count({ where: { sentAt: null } });
    if (pending === 0) return;
  }
  throw new Error("outbox did not drain");
}
