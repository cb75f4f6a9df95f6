/**
 * MAIL_FROM is read as operators write it (docs/mail.md#settings): `addr@x`, `Name <addr@x>`
 * and `"Name, Inc." <addr@x>` all start the service, and mails still go out under the shop's name, at
 * MAIL_FROM's address. Anything that is not one address still stops the start, naming the setting.
 */
import { afterAll, describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { startSmtpReceiver, type SmtpReceiver } from "@mteja/test-support/smtp-receiver";
import { readSettings } from "../src/settings.js";
import { adminKey, registerUser, RestClient, type TestApp } from "./support/app.js";
import { skipDatabaseAgnostic } from "./support/database.js";

describe("MAIL_FROM forms", () => {
  it("accepts a bare address, a display name and a quoted display name with a comma", () => {
    for (const value of ["no-reply@shop.co.ke", "Shop <no-reply@shop.co.ke>", `"Shop, Inc." <no-reply@shop.co.ke>`]) {
      expect(readSettings({ MAIL_FROM: value }).MAIL_FROM).toBe(value);
    }
  });

  it("stops the start on anything else, naming the setting", () => {
    for (const value of ["shop", "Shop <>", "a@shop.co.ke, b@shop.co.ke", "Shop no-reply@shop.co.ke"]) {
      expect(() => readSettings({ MAIL_FROM: value }), value).toThrow(/MAIL_FROM must be one address/);
    }
  });
});

describe.skipIf(skipDatabaseAgnostic)("mail sent with a display name in MAIL_FROM", () => {
  let t: TestApp;
  let receiver: SmtpReceiver;
  it.beforeAll(async ({ launch }) => {
    receiver = await startSmtpReceiver();
    t = await launch.app({ SMTP_URL: receiver.url, MAIL_FROM: `"Shop, Inc." <no-reply@shop.co.ke>` });
  });
  afterAll(async () => {
    await receiver?.stop();
  });

  it("comes from the shop's display name at MAIL_FROM's address", async () => {
    const admin = new RestClient(t.url, "");
    const created = await admin.request("POST", "/api/v1/admin/tenants", {
      body: { id: "duka-bora", name: "Duka Bora", settings: { displayName: "Duka Bora, Nairobi" } },
      headers: { authorization: `Bearer ${adminKey}` },
    });
    expect(created.status).toBe(200);

    const user = await registerUser(new RestClient(t.url, "duka-bora"));
    const mail = await receiver.waitForMail((m) => m.to.includes(user.email));
    expect(mail.from).toEqual({ name: "Duka Bora, Nairobi", address: "no-reply@shop.co.ke" });
    expect(mail.envelopeFrom).toBe("no-reply@shop.co.ke");

    const onDefault = await registerUser(new RestClient(t.url));
    expect((await receiver.waitForMail((m) => m.to.includes(onDefault.email))).from).toEqual({ name: "Mteja Shop", address: "no-reply@shop.co.ke" });
  });
});
