/**
 * Email management through HTTP (docs/email.md): me/email/start mails a link to the new address,
 * me/email/verify switches the account to it (verified); an address another account has is
 * EMAIL_IN_USE at verify, never at start; a newer start retires the older link; a phone-only account
 * adds its first email the same way; the change ends the other sessions and sends notices to the old
 * address and the verified phone. Mails are read from the outbox, texts from the SMS simulator.
 */
import { TRPCClientError } from "@trpc/client";
import { describe, expect } from "vitest";
import type { SmsSimulator } from "@mteja/sms-sim";
import { it } from "./support/fixture.js";
import { RestClient, registerUser, trpcClient, uniqueEmail, type TestApp } from "./support/app.js";
import { testClock } from "./support/clock.js";
import { skipThisTarget, target } from "./support/database.js";
import { watchStatements } from "./support/statements.js";
import { codeTexted, textsTo, uniquePhone } from "./support/sms.js";

const startAnswer = { success: true, message: "A link to confirm the new address is on its way to it. The address changes once the link is opened." };

const clock = testClock();
it.override({ appOptions: { now: clock.now } });

describe.skipIf(skipThisTarget)("email management", () => {
  let t: TestApp;
  let sim: SmsSimulator;

  it.beforeAll(({ smsApp }) => {
    ({ app: t, sim } = smsApp);
  });

  const mailsTo = (email: string) => t.deps.db.unscoped("test").mailOutbox.findMany({ where: { toAddress: email }, orderBy: { createdAt: "asc" } });

  /** The link of the newest change mail to `email`. */
  async function changeLinkTo(email: string): Promise<URL> {
    const mails = (await mailsTo(email)).filter((mail) => mail.kind === "confirmEmailChange");
    const mail = mails.at(-1);
    if (!mail) throw new Error(`no change mail to ${email}`);
    const match = /https?:\/\/\S+\/verify-email\?[^\s"<>]+/.exec(mail.textBody);
    if (!match) throw new Error(`no link in "${mail.subject}"`);
    return new URL(match[0]);
  }

  /** Signs a phone up by SMS; returns its client and token. */
  async function phoneAccount(phone = uniquePhone()) {
    const client = new RestClient(t.url);
    const texted = textsTo(sim, phone.international).length;
    await client.post("/api/v1/auth/phone/start", { phone: phone.local });
    const code = await codeTexted(sim, phone.international, texted + 1);
    const signedIn = await client.post("/api/v1/auth/phone/verify", { phone: phone.local, code });
    expect(signedIn.status).toBe(200);
    return { client, phone, token: signedIn.body.data.access_token as string, id: signedIn.body.data.user.id as string };
  }

  /** A password account whose phone is verified (me/phone/start + verify). */
  async function accountWithVerifiedPhone() {
    const client = new RestClient(t.url);
    const user = await registerUser(client);
    const phone = uniquePhone();
    await client.post("/api/v1/auth/me/phone/start", { phone: phone.local }, user.accessToken);
    const code = await codeTexted(sim, phone.international);
    expect((await client.post("/api/v1/auth/me/phone/verify", { code }, user.accessToken)).status).toBe(200);
    return { ...user, client, phone };
  }

  it("start mails a link to the new address (token, email, change=1, 24 hours); verify switches the account to it, verified", async () => {
    const client = new RestClient(t.url);
    const user = await registerUser(client, { name: "Achieng Otieno" });
    const newEmail = uniqueEmail("moved");
    const started = await client.post("/api/v1/auth/me/email/start", { email: ` ${newEmail.toUpperCase()} ` }, user.accessToken);
    expect(started.status).toBe(200);
    expect(started.body).toEqual(startAnswer);

    const [mail] = await mailsTo(newEmail);
    expect(mail).toMatchObject({ kind: "confirmEmailChange", subject: "Confirm your new email for Mteja Shop" });
    expect(mail!.textBody).toContain("Achieng Otieno");
    const link = await changeLinkTo(newEmail);
    expect(`${link.origin}${link.pathname}`).toBe("http://localhost:3000/verify-email");
    expect(link.searchParams.get("token")).toMatch(/^[0-9a-f]{64}$/);
    expect(link.searchParams.get("email")).toBe(newEmail);
    expect(link.searchParams.get("change")).toBe("1");
    // Nothing goes to the current address yet, and nothing has changed.
    expect((await mailsTo(user.email)).map((m) => m.kind)).toEqual(["verifyEmail"]);
    expect((await client.get("/api/v1/auth/me", user.accessToken)).body.data).toMatchObject({ email: user.email });
    // Stored hashed, for 24 hours, with the address it confirms.
    const rows = await t.deps.db.unscoped("test").oneTimeToken.findMany({ where: { userId: user.id, purpose: "change_email" } });
    expect(rows).toHaveLength(1);
    expect(rows[0]!.tokenHash).not.toBe(link.searchParams.get("token"));
    expect(rows[0]!.email).toBe(newEmail);
    expect(rows[0]!.expiresAt.getTime() - rows[0]!.createdAt.getTime()).toBe(24 * 3600 * 1000);

    const verified = await client.post("/api/v1/auth/me/email/verify", { token: link.searchParams.get("token") }, user.accessToken);
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    expect(verified.body).toEqual({ success: true, data: { email: newEmail, email_verified: true }, message: "Your email address has been changed." });
    expect((await client.get("/api/v1/auth/me", user.accessToken)).body.data).toMatchObject({ email: newEmail, email_verified: true });
    // The new address signs in; the old one no longer does.
    expect((await new RestClient(t.url).post("/api/v1/auth/login", { email: newEmail, password: user.password })).status).toBe(200);
    expect((await new RestClient(t.url).post("/api/v1/auth/login", { email: user.email, password: user.password })).status).toBe(401);
    // Single use.
    const again = await client.post("/api/v1/auth/me/email/verify", { token: link.searchParams.get("token") }, user.accessToken);
    expect(again.status).toBe(400);
    expect(again.body.error.code).toBe("INVALID_TOKEN");
  });

  it("answers start alike for a free and a taken address; the taken one is 409 EMAIL_IN_USE at verify, and nothing changes", async () => {
    const client = new RestClient(t.url);
    const holder = await registerUser(new RestClient(t.url));
    const user = await registerUser(client);
    const free = await client.post("/api/v1/auth/me/email/start", { email: uniqueEmail("free") }, user.accessToken);
    const taken = await client.post("/api/v1/auth/me/email/start", { email: holder.email }, user.accessToken);
    expect([taken.status, taken.body]).toEqual([free.status, free.body]);
    expect(taken.body).toEqual(startAnswer);

    // The holder of the address gets the link (the address is theirs), but it only works for the account that asked.
    const link = await changeLinkTo(holder.email);
    const token = link.searchParams.get("token");
    const inUse = await client.post("/api/v1/auth/me/email/verify", { token }, user.accessToken);
    expect(inUse.status).toBe(409);
    expect(inUse.body.error.code).toBe("EMAIL_IN_USE");
    expect(inUse.body.message).toBe("Another account of this shop uses this email address.");
    const sw = await client.request("POST", "/api/v1/auth/me/email/verify", { body: { token }, token: user.accessToken, headers: { "accept-language": "sw" } });
    expect(sw.body.message).toBe("Akaunti nyingine ya duka hili inatumia anwani hii ya barua pepe.");
    expect((await client.get("/api/v1/auth/me", user.accessToken)).body.data.email).toBe(user.email);
    expect((await client.get("/api/v1/auth/me", holder.accessToken)).body.data.email).toBe(holder.email);
    const holderLink = await client.post("/api/v1/auth/me/email/verify", { token }, holder.accessToken);
    expect(holderLink.status).toBe(400);
    expect(holderLink.body.error.code).toBe("INVALID_TOKEN");
  });

  it("refuses the account's own address (422 on email) and a bad one; verify needs the signed-in account's own link", async () => {
    const client = new RestClient(t.url);
    const user = await registerUser(client);
    const own = await client.post("/api/v1/auth/me/email/start", { email: user.email }, user.accessToken);
    expect(own.status).toBe(422);
    expect(own.body.error.details[0].path).toBe("email");
    expect((await client.post("/api/v1/auth/me/email/start", { email: "not an email" }, user.accessToken)).status).toBe(422);
    expect((await client.post("/api/v1/auth/me/email/start", { email: uniqueEmail() })).status).toBe(401);
    expect((await client.post("/api/v1/auth/me/email/verify", { token: "0".repeat(64) })).status).toBe(401);
    for (const token of ["0".repeat(64), "not-a-token"]) {
      const wrong = await client.post("/api/v1/auth/me/email/verify", { token }, user.accessToken);
      expect(wrong.status).toBe(400);
      expect(wrong.body.error.code).toBe("INVALID_TOKEN");
    }
    expect((await client.post("/api/v1/auth/me/email/verify", {}, user.accessToken)).status).toBe(422);
  });

  it("a newer start retires the older link; a link works for 24 hours", async () => {
    const client = new RestClient(t.url);
    const user = await registerUser(client);
    const first = uniqueEmail("first");
    const second = uniqueEmail("second");
    await client.post("/api/v1/auth/me/email/start", { email: first }, user.accessToken);
    const firstToken = (await changeLinkTo(first)).searchParams.get("token");
    await client.post("/api/v1/auth/me/email/start", { email: second }, user.accessToken);
    const secondToken = (await changeLinkTo(second)).searchParams.get("token");
    const old = await client.post("/api/v1/auth/me/email/verify", { token: firstToken }, user.accessToken);
    expect(old.status).toBe(400);
    expect(old.body.error.code).toBe("INVALID_TOKEN");

    // The session that asked, a day later: its access token has expired meanwhile, its refresh cookie has not.
    const refreshed = async () => (await client.post("/api/v1/auth/refresh")).body.data.access_token as string;
    clock.advance(24 * 3600 + 1);
    try {
      const late = await client.post("/api/v1/auth/me/email/verify", { token: secondToken }, await refreshed());
      expect(late.status).toBe(400);
      expect(late.body.error.code).toBe("INVALID_TOKEN");
    } finally {
      clock.advance(-(24 * 3600 + 1));
    }
    clock.advance(24 * 3600 - 60);
    try {
      expect((await client.post("/api/v1/auth/me/email/verify", { token: secondToken }, await refreshed())).status).toBe(200);
    } finally {
      clock.advance(-(24 * 3600 - 60));
    }
  });

  it("the link works only on the session that asked: another session of the account gets 400 INVALID_TOKEN (a message of its own) and the link still works where it was asked for", async () => {
    const client = new RestClient(t.url);
    const user = await registerUser(client);
    const other = new RestClient(t.url);
    const otherToken = (await other.post("/api/v1/auth/login", { email: user.email, password: user.password })).body.data.access_token as string;
    const newEmail = uniqueEmail("bound");
    expect((await client.post("/api/v1/auth/me/email/start", { email: newEmail }, user.accessToken)).status).toBe(200);
    const token = (await changeLinkTo(newEmail)).searchParams.get("token");
    const row = await t.deps.db.unscoped("test").oneTimeToken.findFirstOrThrow({ where: { userId: user.id, purpose: "change_email" } });
    // The session of the access token that asked (its `sid` claim).
    expect(row.sessionId).toBe(JSON.parse(Buffer.from(user.accessToken.split(".")[1]!, "base64url").toString()).sid);

    const elsewhere = await other.post("/api/v1/auth/me/email/verify", { token }, otherToken);
    expect([elsewhere.status, elsewhere.body.error.code]).toEqual([400, "INVALID_TOKEN"]);
    expect(elsewhere.body.message).toBe("This link works only where the change was asked for: open it on that device, signed in as you were then.");
    const sw = await other.request("POST", "/api/v1/auth/me/email/verify", { body: { token }, token: otherToken, headers: { "accept-language": "sw" } });
    expect(sw.body.message).toBe("Kiungo hiki kinafanya kazi tu pale mabadiliko yalipoombwa: tafadhali kifungue kwenye kifaa hicho, ukiwa umeingia kama ulivyokuwa wakati huo.");
    expect((await client.get("/api/v1/auth/me", user.accessToken)).body.data.email).toBe(user.email);

    expect((await client.post("/api/v1/auth/me/email/verify", { token }, user.accessToken)).status).toBe(200);
    expect((await client.get("/api/v1/auth/me", user.accessToken)).body.data.email).toBe(newEmail);
  });

  it("a changed email ends the other sessions, mails the OLD address and texts the verified phone in the account's language; email.changed", async () => {
    const user = await accountWithVerifiedPhone();
    await user.client.put("/api/v1/auth/me", { preferences: { locale: "sw" } }, user.accessToken);
    const other = new RestClient(t.url);
    const otherLogin = await other.post("/api/v1/auth/login", { email: user.email, password: user.password });
    expect(otherLogin.status).toBe(200);
    const texted = textsTo(sim, user.phone.international).length;

    const newEmail = uniqueEmail("changed");
    await user.client.post("/api/v1/auth/me/email/start", { email: newEmail }, user.accessToken);
    const token = (await changeLinkTo(newEmail)).searchParams.get("token");
    // The mail to the new address is in the account's language too.
    expect((await mailsTo(newEmail))[0]!.subject).toBe("Thibitisha barua pepe yako mpya ya Mteja Shop");
    expect((await user.client.post("/api/v1/auth/me/email/verify", { token }, user.accessToken)).status).toBe(200);

    // This session goes on; the other one is over, its access token and its refresh cookie alike.
    expect((await user.client.get("/api/v1/auth/me", user.accessToken)).status).toBe(200);
    expect((await other.get("/api/v1/auth/me", otherLogin.body.data.access_token)).status).toBe(401);
    expect((await other.post("/api/v1/auth/refresh")).status).toBe(401);

    const notices = (await mailsTo(user.email)).filter((mail) => mail.kind === "emailChanged");
    expect(notices).toHaveLength(1);
    expect(notices[0]!.subject).toBe("Barua pepe ya akaunti yako ya Mteja Shop imebadilishwa");
    expect(notices[0]!.textBody).toContain("umetolewa kwenye vifaa vyako vingine");
    // The new address is told nothing more than its link.
    expect((await mailsTo(newEmail)).map((m) => m.kind)).toEqual(["confirmEmailChange"]);
    await expect.poll(() => textsTo(sim, user.phone.international).length, { timeout: 10_000 }).toBe(texted + 1);
    const text = textsTo(sim, user.phone.international)[texted]!;
    expect(text.message).toBe("Mteja Shop: barua pepe ya akaunti yako imebadilishwa na umetolewa kwenye vifaa vingine. Si wewe? Wasiliana na Mteja Shop mara moja.");
    expect(text.parts).toBe(1);

    const events = (await user.client.get("/api/v1/auth/me/security-events", user.accessToken)).body.data.security_events;
    expect(events.filter((e: { type: string }) => e.type === "email.changed")).toMatchObject([{ details: { first: false, sessions_ended: 1 } }]);
  });

  it("a phone-only account adds its first email the same way: no mail to an old address, a text to its phone, other sessions end", async () => {
    const account = await phoneAccount();
    const second = await phoneAccount(account.phone);
    const texted = textsTo(sim, account.phone.international).length;
    const email = uniqueEmail("first-email");
    const started = await account.client.post("/api/v1/auth/me/email/start", { email }, account.token);
    expect(started.body).toEqual(startAnswer);
    const token = (await changeLinkTo(email)).searchParams.get("token");
    const verified = await account.client.post("/api/v1/auth/me/email/verify", { token }, account.token);
    expect(verified.status).toBe(200);
    expect(verified.body.data).toEqual({ email, email_verified: true });
    expect((await account.client.get("/api/v1/auth/me", account.token)).body.data).toMatchObject({ email, email_verified: true, phone_verified: true });
    expect((await second.client.get("/api/v1/auth/me", second.token)).status).toBe(401);
    expect((await mailsTo(email)).map((m) => m.kind)).toEqual(["confirmEmailChange"]);
    await expect.poll(() => textsTo(sim, account.phone.international).length, { timeout: 10_000 }).toBe(texted + 1);
    expect(textsTo(sim, account.phone.international)[texted]!.message).toBe(
      "Mteja Shop: an email address was added to your account and your other devices were signed out. Not you? Contact Mteja Shop at once.",
    );
    const events = (await account.client.get("/api/v1/auth/me/security-events", account.token)).body.data.security_events;
    expect(events.filter((e: { type: string }) => e.type === "email.changed")).toMatchObject([{ details: { first: true, sessions_ended: 1 } }]);
  });

  it("works over tRPC: email.start, email.verify; EMAIL_IN_USE is 409", async () => {
    const holder = await registerUser(new RestClient(t.url));
    const user = await registerUser(new RestClient(t.url));
    const trpc = trpcClient(t.url, () => ({ authorization: `Bearer ${user.accessToken}`, "x-tenant-id": "default" }));
    expect(await trpc.email.start.mutate({ email: holder.email })).toEqual(startAnswer);
    const error = await trpc.email.verify.mutate({ token: (await changeLinkTo(holder.email)).searchParams.get("token")! }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TRPCClientError);
    expect((error as TRPCClientError<any>).shape.error.code).toBe("EMAIL_IN_USE");
    expect((error as TRPCClientError<any>).data.httpStatus).toBe(409);

    const newEmail = uniqueEmail("trpc");
    await trpc.email.start.mutate({ email: newEmail });
    const result = await trpc.email.verify.mutate({ token: (await changeLinkTo(newEmail)).searchParams.get("token")! });
    expect(result.data).toEqual({ email: newEmail, email_verified: true });
  });
});

describe.skipIf(skipThisTarget)("email management limits", () => {
  it("start: 5 per account per hour, then 429 with Retry-After; an address gets at most 5 links an hour whoever asks, the answer unchanged", async ({ launch }) => {
    const clock = testClock();
    const t = await launch.app({}, { now: clock.now });
    const client = new RestClient(t.url);
    const user = await registerUser(client);
    for (let i = 0; i < 5; i++) {
      expect((await client.post("/api/v1/auth/me/email/start", { email: uniqueEmail("many") }, user.accessToken)).status).toBe(200);
    }
    const limited = await client.post("/api/v1/auth/me/email/start", { email: uniqueEmail("many") }, user.accessToken);
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe("RATE_LIMITED");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);

    // One address, asked for by several accounts: 5 links, then the same answer and no mail.
    const address = uniqueEmail("target");
    for (let i = 0; i < 7; i++) {
      const other = await registerUser(new RestClient(t.url));
      const answer = await new RestClient(t.url).post("/api/v1/auth/me/email/start", { email: address }, other.accessToken);
      expect([answer.status, answer.body]).toEqual([200, startAnswer]);
    }
    expect(await t.deps.db.unscoped("test").mailOutbox.count({ where: { toAddress: address } })).toBe(5);
  });
});

describe.skipIf(skipThisTarget || target !== "postgres")("email change start: the same work for every address", () => {
  const watch = watchStatements();

  it("sends the same statements for a free and a taken address: no lookup of other accounts, nothing for timing to tell apart", async ({ launch }) => {
    const t = await launch.app();
    const client = new RestClient(t.url);
    const user = await registerUser(client);
    const holder = await registerUser(new RestClient(t.url));
    const run = async (email: string) => {
      watch.start();
      const answer = await client.post("/api/v1/auth/me/email/start", { email }, user.accessToken);
      const statements = watch.stop().map((statement) => statement.text);
      expect([answer.status, answer.body]).toEqual([200, startAnswer]);
      return statements;
    };
    // The first request of a connection may prepare what the next ones reuse: warm up, then compare.
    await run(uniqueEmail("warm-up"));
    const free = await run(uniqueEmail("free"));
    const taken = await run(holder.email);
    expect(taken).toEqual(free);
    expect(free.length).toBeGreaterThan(3);
  });
});
