/** MAIL_FROM as operators write it (RFC 5322 forms), and the From of each mail built from it. */
import { describe, expect, it } from "vitest";
import { createMailTransport, parseSender } from "../src/index.js";
import { formatSender, senderOf } from "../src/sender.js";
import { captureLogger } from "./support/capture-logger.js";
import { startSmtpReceiver } from "@mteja/test-support/smtp-receiver";

describe("parseSender", () => {
  it("reads a bare address, a display name and a quoted display name with a comma", () => {
    expect(parseSender("no-reply@shop.co.ke")).toEqual({ name: "", address: "no-reply@shop.co.ke" });
    expect(parseSender("Shop <no-reply@shop.co.ke>")).toEqual({ name: "Shop", address: "no-reply@shop.co.ke" });
    expect(parseSender(`"Name, Inc." <addr@shop.co.ke>`)).toEqual({ name: "Name, Inc.", address: "addr@shop.co.ke" });
    expect(parseSender(`"Duka \\"Bora\\"" <a@shop.co.ke>`)).toEqual({ name: `Duka "Bora"`, address: "a@shop.co.ke" });
    expect(parseSender("  <no-reply@shop.co.ke> ")).toEqual({ name: "", address: "no-reply@shop.co.ke" });
  });

  it("refuses anything that is not exactly one address", () => {
    for (const text of ["", "not an address", "Shop <>", "a@x.co, b@y.co", "Team: a@x.co;", "Shop no-reply@shop.co.ke", "no-reply@localhost", "Shop <no reply@shop.co.ke>"]) {
      expect(parseSender(text), text).toBeUndefined();
    }
  });
});

describe("the sender of a mail", () => {
  it("is the shop's name at MAIL_FROM's address; MAIL_FROM's own name only when the mail has none", () => {
    const configured = { name: "Name, Inc.", address: "addr@shop.co.ke" };
    expect(senderOf("Duka Bora", configured)).toEqual({ name: "Duka Bora", address: "addr@shop.co.ke" });
    expect(senderOf("  ", configured)).toEqual(configured);
    expect(formatSender(senderOf("", { name: "", address: "addr@shop.co.ke" }))).toBe("addr@shop.co.ke");
  });

  it("goes over SMTP with the shop's name and MAIL_FROM's bare address, whatever form MAIL_FROM takes", async () => {
    const receiver = await startSmtpReceiver();
    const transport = createMailTransport({ smtpUrl: receiver.url, from: `"Name, Inc." <addr@shop.co.ke>`, logger: captureLogger(), logMailBodies: false });
    try {
      const base = { tenantId: "duka", to: "amina@example.com", subject: "Hello", text: "Hi", html: "<p>Hi</p>", attempts: 0, kind: "verifyEmail" as const };
      await transport.send({ ...base, id: "mail-1", fromName: "Duka Bora" });
      await transport.send({ ...base, id: "mail-2", fromName: "", to: "baraka@example.com" });
      const first = await receiver.waitForMail((mail) => mail.to.includes("amina@example.com"));
      expect(first.from).toEqual({ name: "Duka Bora", address: "addr@shop.co.ke" });
      expect(first.envelopeFrom).toBe("addr@shop.co.ke");
      expect(first.headers["message-id"]).toBe("<outbox.mail-1@shop.co.ke>");
      const second = await receiver.waitForMail((mail) => mail.to.includes("baraka@example.com"));
      expect(second.from).toEqual({ name: "Name, Inc.", address: "addr@shop.co.ke" });
    } finally {
      await transport.close();
      await receiver.stop();
    }
  });

  it("refuses to create a transport with a sender that does not parse", () => {
    expect(() => createMailTransport({ from: "Shop no-reply@shop.co.ke", logger: captureLogger(), logMailBodies: false })).toThrow(/Mail sender/);
  });
});
