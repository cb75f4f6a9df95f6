/**
 * Answers, details and mails in English and Swahili (docs/i18n.md), through REST and tRPC with a real
 * SMTP receiver: the language comes from the signed-in user's preferences.locale, else Accept-Language,
 * else the shop's settings.locale; an unauthenticated answer follows Accept-Language only, never the
 * account it names; register stores the request's language; codes and field names never change.
 */
import { TRPCClientError } from "@trpc/client";
import { afterAll, describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { startSmtpReceiver, type ReceivedMail, type SmtpReceiver } from "@mteja/test-support/smtp-receiver";
import { adminKey, RestClient, trpcClient, uniqueEmail, type TestApp } from "./support/app.js";
import { skipDatabaseAgnostic } from "./support/database.js";

const password = "correct horse battery";

describe.skipIf(skipDatabaseAgnostic)("languages", () => {
  let t: TestApp;
  let receiver: SmtpReceiver;
  let client: RestClient;

  it.beforeAll(async ({ launch }) => {
    receiver = await startSmtpReceiver();
    t = await launch.app({ SMTP_URL: receiver.url, APP_URL: "https://shop.example.co.ke", MAIL_FROM: "hello@mteja.test" });
    client = new RestClient(t.url);
  });
  afterAll(async () => {
    await receiver?.stop();
  });

  const post = (path: string, body: unknown, headers: Record<string, string> = {}, token?: string) =>
    client.request("POST", path, { body, headers, ...(token ? { token } : {}) });
  const put = (path: string, body: unknown, headers: Record<string, string>, token: string) => client.request("PUT", path, { body, headers, token });

  async function register(headers: Record<string, string>, name = "Wanjiku Kamau") {
    const email = uniqueEmail("lugha");
    const res = await post("/api/v1/auth/register", { name, email, password }, headers);
    expect(res.status).toBe(201);
    return { email, id: res.body.data.user.id as string, accessToken: res.body.data.access_token as string };
  }

  const mailTo = (email: string, subject: RegExp): Promise<ReceivedMail> =>
    receiver.waitForMail((mail) => mail.to.includes(email) && subject.test(mail.subject), 10_000);

  describe("unauthenticated answers follow Accept-Language", () => {
    it.each(["sw", "sw-KE", "fr-FR, sw;q=0.9, en;q=0.5"])("REST in Swahili for %s: message and details[].message; codes and paths unchanged", async (language) => {
      const res = await post("/api/v1/auth/register", { name: "", email: "si-barua-pepe", password: "fupi" }, { "accept-language": language });
      expect(res.status).toBe(422);
      expect(res.body.success).toBe(false);
      expect(res.body.error.code).toBe("VALIDATION_ERROR");
      expect(res.body.message).toBe("Ombi si sahihi.");
      const byPath = Object.fromEntries(res.body.error.details.map((d: { path: string; message: string }) => [d.path, d.message]));
      expect(byPath).toEqual({
        name: "name inahitajika",
        email: "email si anwani sahihi ya barua pepe",
        password: "password lazima iwe na angalau herufi 8",
      });
    });

    it("REST in English without Accept-Language, or for a language it does not speak", async () => {
      for (const headers of [{}, { "accept-language": "en-GB" }, { "accept-language": "fr" }] as Record<string, string>[]) {
        const res = await post("/api/v1/auth/register", { name: "A", email: "si-barua-pepe", password }, headers);
        expect(res.status).toBe(422);
        expect(res.body.message).toBe("The request is invalid.");
        expect(res.body.error.details).toEqual([{ path: "email", message: "email is not a valid email address" }]);
      }
    });

    it("tRPC in Swahili too, with the same code and HTTP status", async () => {
      const trpc = trpcClient(t.url, () => ({ "x-tenant-id": "default", "accept-language": "sw-KE" }));
      const error = await trpc.auth.login.mutate({ email: "si-barua-pepe", password }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TRPCClientError);
      const shape = (error as TRPCClientError<never>).shape as unknown as { message: string; error: { code: string; details: { path: string; message: string }[] }; data: { httpStatus: number } };
      expect(shape.message).toBe("Ombi si sahihi.");
      expect(shape.error.code).toBe("VALIDATION_ERROR");
      expect(shape.data.httpStatus).toBe(422);
      expect(shape.error.details).toEqual([{ path: "email", message: "email si anwani sahihi ya barua pepe" }]);

      const unknownTenant = trpcClient(t.url, () => ({ "x-tenant-id": "hakuna-duka", "accept-language": "sw" }));
      const missing = await unknownTenant.auth.login.mutate({ email: uniqueEmail(), password }).catch((e: unknown) => e);
      expect((missing as TRPCClientError<never>).shape).toMatchObject({ message: "Hakuna duka linalotumika lenye X-Tenant-ID hii.", error: { code: "TENANT_NOT_FOUND" } });
    });

    it("errors Fastify answers itself (malformed JSON, unknown path) follow Accept-Language as well", async () => {
      const malformed = await client.request("POST", "/api/v1/auth/login", { rawBody: "{nope", headers: { "content-type": "application/json", "accept-language": "sw" } });
      expect(malformed.status).toBe(400);
      expect(malformed.body).toEqual({
        success: false,
        message: "Maudhui ya ombi lazima yawe JSON sahihi yaliyotumwa kama application/json.",
        error: { code: "MALFORMED_REQUEST" },
      });
      const deep = await fetch(`${t.url}/trpc/auth.login`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-tenant-id": "default", "accept-language": "sw" },
        body: "[]",
      });
      expect(deep.status).toBe(400);
      expect(await deep.json()).toMatchObject({ error: { message: "Maudhui ya ombi lazima yawe kitu (object) cha JSON.", error: { code: "MALFORMED_REQUEST" } } });
      const missing = await client.request("GET", "/hakuna-kitu", { headers: { "accept-language": "sw" } });
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ success: false, message: "Haikupatikana.", error: { code: "NOT_FOUND" } });
    });

    it("the account a sign-in names never decides its language: a Swahili reader's email with English asked answers English", async () => {
      const swahili = await register({ "accept-language": "sw" });
      const english = await post("/api/v1/auth/login", { email: swahili.email, password: "wrong password" }, { "accept-language": "en" });
      expect(english.status).toBe(401);
      expect(english.body).toEqual({ success: false, message: "The email or password is incorrect.", error: { code: "INVALID_CREDENTIALS" } });
      const none = await post("/api/v1/auth/login", { email: swahili.email, password: "wrong password" });
      expect(none.body.message).toBe("The email or password is incorrect.");
      const asked = await post("/api/v1/auth/login", { email: uniqueEmail("hakuna"), password: "wrong password" }, { "accept-language": "sw" });
      expect(asked.body).toEqual({ success: false, message: "Barua pepe au nenosiri si sahihi.", error: { code: "INVALID_CREDENTIALS" } });
    });
  });

  describe("register stores the request's language", () => {
    it("as preferences.locale when Accept-Language names one, and nothing otherwise", async () => {
      const sw = await register({ "accept-language": "sw-KE,sw;q=0.9" });
      expect((await client.get("/api/v1/auth/me", sw.accessToken)).body.data.preferences).toEqual({ locale: "sw" });
      const en = await register({ "accept-language": "en-US" });
      expect((await client.get("/api/v1/auth/me", en.accessToken)).body.data.preferences).toEqual({ locale: "en" });
      const none = await register({});
      expect((await client.get("/api/v1/auth/me", none.accessToken)).body.data.preferences).toEqual({});
    });

    it("and the verification mail goes out in that language", async () => {
      const user = await register({ "accept-language": "sw" }, "Baraka Mwangi");
      const mail = await mailTo(user.email, /Mteja Shop/);
      expect(mail.subject).toBe("Karibu Mteja Shop: tafadhali thibitisha barua pepe yako");
      expect(mail.text).toMatch(/^Habari Baraka Mwangi,/);
      expect(mail.text).toContain("Tafadhali thibitisha kwamba hii ni anwani yako ya barua pepe");
      expect(mail.text).toContain("Kiungo hiki kinafanya kazi kwa saa 24");
      expect(mail.html).toContain('<html lang="sw">');
      expect(mail.html).toContain("Thibitisha barua pepe yangu");
    });
  });

  describe("a signed-in user's preference", () => {
    it("decides the language of their errors over Accept-Language, on REST and tRPC", async () => {
      const user = await register({ "accept-language": "sw" });
      const wrong = await put("/api/v1/auth/me/password", { current_password: "not my password", new_password: "another good one" }, { "accept-language": "en" }, user.accessToken);
      expect(wrong.status).toBe(401);
      expect(wrong.body).toEqual({ success: false, message: "Nenosiri la sasa si sahihi.", error: { code: "INVALID_CREDENTIALS" } });

      const badPhone = await put("/api/v1/auth/me", { phone: "12345" }, { "accept-language": "en" }, user.accessToken);
      expect(badPhone.status).toBe(422);
      expect(badPhone.body.message).toBe("Ombi si sahihi.");
      expect(badPhone.body.error.details).toEqual([
        { path: "phone", message: "phone lazima iwe nambari ya simu ya mkononi ya Kenya (07…, 01…, 2547…, 2541… au +254…)" },
      ]);

      const trpc = trpcClient(t.url, () => ({ "x-tenant-id": "default", "accept-language": "en", authorization: `Bearer ${user.accessToken}` }));
      const missing = await trpc.addresses.remove.mutate({ id: "00000000-0000-4000-8000-000000000000" }).catch((e: unknown) => e);
      expect((missing as TRPCClientError<never>).shape).toMatchObject({ message: "Hakuna anwani yenye kitambulisho hiki.", error: { code: "NOT_FOUND" } });
    });

    it("is set and cleared with PUT me preferences.locale; without one, Accept-Language decides", async () => {
      const user = await register({});
      const set = await put("/api/v1/auth/me", { preferences: { locale: "sw" } }, {}, user.accessToken);
      expect(set.status).toBe(200);
      expect((await client.get("/api/v1/auth/me", user.accessToken)).body.data.preferences).toEqual({ locale: "sw" });
      const wrong = { current_password: "not my password", new_password: "another good one" };
      expect((await put("/api/v1/auth/me/password", wrong, {}, user.accessToken)).body.message).toBe("Nenosiri la sasa si sahihi.");

      const cleared = await put("/api/v1/auth/me", { preferences: { locale: null } }, {}, user.accessToken);
      expect(cleared.status).toBe(200);
      expect((await client.get("/api/v1/auth/me", user.accessToken)).body.data.preferences).toEqual({});
      expect((await put("/api/v1/auth/me/password", wrong, {}, user.accessToken)).body.message).toBe("The current password is incorrect.");
      expect((await put("/api/v1/auth/me/password", wrong, { "accept-language": "sw" }, user.accessToken)).body.message).toBe("Nenosiri la sasa si sahihi.");

      const refused = await put("/api/v1/auth/me", { preferences: { locale: "fr" } }, { "accept-language": "sw" }, user.accessToken);
      expect(refused.status).toBe(422);
      expect(refused.body.error.details).toEqual([{ path: "preferences.locale", message: "preferences.locale lazima iwe mojawapo ya: en, sw" }]);
    });

    it("decides the language of their mails, whoever asked for them", async () => {
      const user = await register({ "accept-language": "sw" }, "Amina Njeri");
      const changed = await put("/api/v1/auth/me/password", { current_password: password, new_password: "nenosiri jipya zuri" }, { "accept-language": "en" }, user.accessToken);
      expect(changed.status).toBe(200);
      const mail = await mailTo(user.email, /limebadilishwa/);
      expect(mail.subject).toBe("Nenosiri lako la Mteja Shop limebadilishwa");
      expect(mail.text).toMatch(/^Habari Amina Njeri,/);
      expect(mail.text).toMatch(/lilibadilishwa (Jumatatu|Jumanne|Jumatano|Alhamisi|Ijumaa|Jumamosi|Jumapili), \d{1,2} [A-Z][a-z]+ \d{4} saa \d{2}:\d{2} \(saa za Afrika Mashariki\)/);
      expect(mail.text).toContain("Umesahau nenosiri");
    });
  });

  describe("the shop's settings.locale", () => {
    const admin = (method: string, path: string, body?: unknown) =>
      new RestClient(t.url, "").request(method, path, { ...(body !== undefined ? { body } : {}), headers: { authorization: `Bearer ${adminKey}` } });

    it("is en or sw, validated by the admin API", async () => {
      const refused = await admin("POST", "/api/v1/admin/tenants", { id: "duka-lugha-x", name: "Duka X", settings: { locale: "fr" } });
      expect(refused.status).toBe(422);
      expect(refused.body.error.details.map((d: { path: string }) => d.path)).toEqual(["settings.locale"]);
    });

    it("answers a signed-in user without a preference or Accept-Language, and writes their mails; never an unauthenticated answer", async () => {
      const created = await admin("POST", "/api/v1/admin/tenants", { id: "duka-la-kiswahili", name: "Duka la Kiswahili", settings: { locale: "sw" } });
      expect(created.status).toBe(200);
      const shop = new RestClient(t.url, "duka-la-kiswahili");
      const email = uniqueEmail("duka");
      const registered = await shop.post("/api/v1/auth/register", { name: "Juma Ali", email, password });
      expect(registered.status).toBe(201);
      const token = registered.body.data.access_token as string;

      const verification = await mailTo(email, /Duka la Kiswahili/);
      expect(verification.subject).toBe("Karibu Duka la Kiswahili: tafadhali thibitisha barua pepe yako");

      const wrong = { current_password: "not my password", new_password: "another good one" };
      expect((await shop.request("PUT", "/api/v1/auth/me/password", { body: wrong, token })).body.message).toBe("Nenosiri la sasa si sahihi.");
      expect((await shop.request("PUT", "/api/v1/auth/me/password", { body: wrong, token, headers: { "accept-language": "en" } })).body.message).toBe("The current password is incorrect.");

      const unauthenticated = await shop.post("/api/v1/auth/login", { email, password: "wrong password" });
      expect(unauthenticated.body).toEqual({ success: false, message: "The email or password is incorrect.", error: { code: "INVALID_CREDENTIALS" } });
    });
  });
});
