/**
 * What follows a change to the ways into an account (docs/sessions.md#what-ends-sessions): changing a
 * verified phone, a first verified phone, and turning two-factor on end every other session (the
 * current one stays) and send notices to the OLD email and the OLD verified phone, in the account's
 * language, written in the change's transaction; `phone.changed` is recorded. Email changes are in
 * email-change.test.ts. Texts are read from the SMS simulator, mails from the outbox.
 */
import { describe, expect } from "vitest";
import type { SmsSimulator } from "@mteja/sms-sim";
import { it } from "./support/fixture.js";
import { RestClient, registerUser, trpcClient, type TestApp } from "./support/app.js";
import { skipThisTarget } from "./support/database.js";
import { step, totpClock } from "./support/two-factor.js";
import { totpAt } from "./support/totp.js";
import { codeTexted, textsTo, uniquePhone } from "./support/sms.js";

const clock = totpClock();
it.override({ appOptions: { now: clock.now } });

describe.skipIf(skipThisTarget)("sign-in factor changes", () => {
  let t: TestApp;
  let sim: SmsSimulator;

  it.beforeAll(({ smsApp }) => {
    ({ app: t, sim } = smsApp);
  });

  type Phone = ReturnType<typeof uniquePhone>;
  const mailKindsTo = async (email: string) =>
    (await t.deps.db.unscoped("test").mailOutbox.findMany({ where: { toAddress: email }, orderBy: { createdAt: "asc" } })).map((mail) => mail.kind);

  /** me/phone/start + me/phone/verify of `phone` on the account of `token`. */
  async function verifyPhone(client: RestClient, token: string, phone: Phone) {
    const texted = textsTo(sim, phone.international).length;
    expect((await client.post("/api/v1/auth/me/phone/start", { phone: phone.local }, token)).status).toBe(200);
    const code = await codeTexted(sim, phone.international, texted + 1);
    return client.post("/api/v1/auth/me/phone/verify", { code }, token);
  }

  /** A second session of the account (a password sign-in from another device). */
  async function secondSession(user: { email: string; password: string }) {
    const other = new RestClient(t.url);
    const login = await other.post("/api/v1/auth/login", { email: user.email, password: user.password });
    expect(login.status).toBe(200);
    return { client: other, token: login.body.data.access_token as string };
  }

  async function eventsOf(client: RestClient, token: string) {
    return (await client.get("/api/v1/auth/me/security-events", token)).body.data.security_events as { type: string; details: Record<string, unknown> }[];
  }

  it("changing the verified phone ends the other sessions and tells the old email and the OLD phone (not the new one); phone.changed", async () => {
    const client = new RestClient(t.url);
    const user = await registerUser(client);
    const oldPhone = uniquePhone();
    expect((await verifyPhone(client, user.accessToken, oldPhone)).status).toBe(200);
    const other = await secondSession(user);
    const textedOld = textsTo(sim, oldPhone.international).length;
    const mailsBefore = await mailKindsTo(user.email);

    const newPhone = uniquePhone();
    const changed = await verifyPhone(client, user.accessToken, newPhone);
    expect(changed.status).toBe(200);
    expect(changed.body.data).toEqual({ phone: newPhone.stored, phone_verified: true });

    expect((await client.get("/api/v1/auth/me", user.accessToken)).body.data).toMatchObject({ phone: newPhone.stored, phone_verified: true });
    const ended = await other.client.get("/api/v1/auth/me", other.token);
    expect(ended.status).toBe(401);
    expect(ended.body.error.code).toBe("INVALID_TOKEN");
    expect((await other.client.post("/api/v1/auth/refresh")).status).toBe(401);

    // What was added since (the mails of one clock reading have no order among themselves).
    const added = [...(await mailKindsTo(user.email))];
    for (const kind of mailsBefore) added.splice(added.indexOf(kind), 1);
    expect(added).toEqual(["phoneChanged"]);
    const notice = await t.deps.db.unscoped("test").mailOutbox.findFirstOrThrow({ where: { toAddress: user.email, kind: "phoneChanged" } });
    expect(notice.subject).toBe("The phone number of your Mteja Shop account was changed");
    expect(notice.textBody).toContain("you were signed out on your other devices");
    await expect.poll(() => textsTo(sim, oldPhone.international).length, { timeout: 10_000 }).toBe(textedOld + 1);
    const text = textsTo(sim, oldPhone.international)[textedOld]!;
    expect(text.message).toBe("Mteja Shop: the phone number of your account was changed and your other devices were signed out. Not you? Contact Mteja Shop at once.");
    expect(text.parts).toBe(1);
    // The new phone got its code and nothing else.
    expect(textsTo(sim, newPhone.international)).toHaveLength(1);

    // The old phone no longer signs in; the new one does.
    expect((await new RestClient(t.url).post("/api/v1/auth/phone/start", { phone: oldPhone.local })).status).toBe(200);
    const events = await eventsOf(client, user.accessToken);
    expect(events.filter((e) => e.type === "phone.changed")).toMatchObject([{ details: { sessions_ended: 1 } }]);
  });

  it("notices go out in the account's language (Swahili mail and text)", async () => {
    const client = new RestClient(t.url);
    const user = await registerUser(client);
    await client.put("/api/v1/auth/me", { preferences: { locale: "sw" } }, user.accessToken);
    const oldPhone = uniquePhone();
    expect((await verifyPhone(client, user.accessToken, oldPhone)).status).toBe(200);
    const textedOld = textsTo(sim, oldPhone.international).length;
    expect((await verifyPhone(client, user.accessToken, uniquePhone())).status).toBe(200);
    const notice = await t.deps.db.unscoped("test").mailOutbox.findFirstOrThrow({ where: { toAddress: user.email, kind: "phoneChanged" } });
    expect(notice.subject).toBe("Nambari ya simu ya akaunti yako ya Mteja Shop imebadilishwa");
    await expect.poll(() => textsTo(sim, oldPhone.international).length, { timeout: 10_000 }).toBe(textedOld + 1);
    const text = textsTo(sim, oldPhone.international)[textedOld]!;
    expect(text.message).toBe("Mteja Shop: nambari ya simu ya akaunti yako imebadilishwa na umetolewa kwenye vifaa vingine. Si wewe? Wasiliana na Mteja Shop mara moja.");
    expect(text.parts).toBe(1);
  });

  it("a first verified phone is a new way in: the other sessions end and the email is told; phone.verified, not phone.changed", async () => {
    const client = new RestClient(t.url);
    const user = await registerUser(client);
    const other = await secondSession(user);
    const phone = uniquePhone();
    expect((await verifyPhone(client, user.accessToken, phone)).status).toBe(200);
    expect((await client.get("/api/v1/auth/me", user.accessToken)).status).toBe(200);
    expect((await other.client.get("/api/v1/auth/me", other.token)).status).toBe(401);
    // Mails written at one clock reading have no order among themselves.
    expect((await mailKindsTo(user.email)).sort()).toEqual(["phoneAdded", "verifyEmail"]);
    // Only the code reached the new phone: there was no old phone to tell.
    expect(textsTo(sim, phone.international)).toHaveLength(1);
    const types = (await eventsOf(client, user.accessToken)).map((e) => e.type);
    expect(types).toContain("phone.verified");
    expect(types).not.toContain("phone.changed");
  });

  it("verifying the same verified phone again is no change: sessions stay, nothing is sent", async () => {
    const client = new RestClient(t.url);
    const user = await registerUser(client);
    const phone = uniquePhone();
    expect((await verifyPhone(client, user.accessToken, phone)).status).toBe(200);
    const other = await secondSession(user);
    const mails = await mailKindsTo(user.email);
    const texted = textsTo(sim, phone.international).length;
    expect((await verifyPhone(client, user.accessToken, phone)).status).toBe(200);
    expect((await other.client.get("/api/v1/auth/me", other.token)).status).toBe(200);
    expect(await mailKindsTo(user.email)).toEqual(mails);
    // Its code only.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(textsTo(sim, phone.international)).toHaveLength(texted + 1);
  });

  it("turning two-factor on ends the other sessions, mails the email and texts the verified phone", async () => {
    const client = new RestClient(t.url);
    const user = await registerUser(client);
    const phone = uniquePhone();
    expect((await verifyPhone(client, user.accessToken, phone)).status).toBe(200);
    const other = await secondSession(user);
    const texted = textsTo(sim, phone.international).length;

    const secret = (await client.post("/api/v1/auth/otp/setup", undefined, user.accessToken)).body.data.secret as string;
    // Setting up changes nothing yet.
    expect((await other.client.get("/api/v1/auth/me", other.token)).status).toBe(200);
    expect((await client.post("/api/v1/auth/otp/verify", { code: totpAt(secret, clock.now()) }, user.accessToken)).status).toBe(200);
    clock.advance(step);

    expect((await client.get("/api/v1/auth/me", user.accessToken)).status).toBe(200);
    expect((await other.client.get("/api/v1/auth/me", other.token)).status).toBe(401);
    expect(await mailKindsTo(user.email)).toContain("twoFactorEnabled");
    const notice = await t.deps.db.unscoped("test").mailOutbox.findFirstOrThrow({ where: { toAddress: user.email, kind: "twoFactorEnabled" } });
    expect(notice.textBody).toContain("you were signed out on your other devices");
    await expect.poll(() => textsTo(sim, phone.international).length, { timeout: 10_000 }).toBe(texted + 1);
    expect(textsTo(sim, phone.international)[texted]!.message).toBe(
      "Mteja Shop: two-step sign-in was turned on for your account and your other devices were signed out. Not you? Contact Mteja Shop at once.",
    );
    const enabled = (await eventsOf(client, user.accessToken)).find((e) => e.type === "otp.enabled");
    expect(enabled).toBeDefined();
  });

  it("over tRPC too: a phone-only account turning two-factor on (otp.verify) ends its other sessions and texts its phone", async () => {
    const phone = uniquePhone();
    const signIn = async () => {
      const client = new RestClient(t.url);
      const texted = textsTo(sim, phone.international).length;
      await client.post("/api/v1/auth/phone/start", { phone: phone.local });
      const code = await codeTexted(sim, phone.international, texted + 1);
      const verified = await client.post("/api/v1/auth/phone/verify", { phone: phone.local, code });
      return { client, token: verified.body.data.access_token as string };
    };
    const first = await signIn();
    const second = await signIn();
    const trpc = trpcClient(t.url, () => ({ authorization: `Bearer ${first.token}`, "x-tenant-id": "default" }));
    const { data } = await trpc.otp.setup.mutate();
    const texted = textsTo(sim, phone.international).length;
    await trpc.otp.verify.mutate({ code: totpAt(data.secret, clock.now()) });
    clock.advance(step);
    expect((await second.client.get("/api/v1/auth/me", second.token)).status).toBe(401);
    expect((await first.client.get("/api/v1/auth/me", first.token)).status).toBe(200);
    await expect.poll(() => textsTo(sim, phone.international).length, { timeout: 10_000 }).toBe(texted + 1);
    expect(textsTo(sim, phone.international)[texted]!.message).toContain("two-step sign-in was turned on");
  });
});
