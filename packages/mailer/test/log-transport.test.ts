import { describe, expect, it } from "vitest";
import { createMailTransport, type OutboxMail } from "../src/index.js";
import { captureLogger } from "./support/capture-logger.js";

const token = "9f".repeat(32);

function mail(overrides: Partial<OutboxMail> = {}): OutboxMail {
  return {
    id: "mail-1",
    tenantId: "duka-bora",
    to: "amina@example.com",
    fromName: `Duka "Bora"`,
    subject: "Reset your Duka Bora password",
    text: `Open https://shop.example/reset-password?token=${token}&email=amina%40example.com`,
    html: `<a href="https://shop.example/reset-password?token=${token}">Reset</a>`,
    attempts: 0,
    kind: "resetPassword",
    ...overrides,
  };
}

describe("log transport", () => {
  it("logs subject and recipient but not the body when bodies are hidden", async () => {
    const logger = captureLogger();
    const transport = createMailTransport({ from: "no-reply@mteja.test", logger, logMailBodies: false });
    await transport.send(mail());
    expect(logger.entries).toHaveLength(1);
    const [entry] = logger.entries;
    expect(entry?.level).toBe("info");
    expect(entry?.fields).toMatchObject({ to: "amina@example.com", subject: "Reset your Duka Bora password", mailId: "mail-1" });
    expect(JSON.stringify(logger.entries)).not.toContain(token);
  });

  it("logs the text body when asked to (development)", async () => {
    const logger = captureLogger();
    const transport = createMailTransport({ from: "no-reply@mteja.test", logger, logMailBodies: true });
    await transport.send(mail());
    expect(logger.entries[0]?.fields["text"]).toContain(token);
  });

  it("keeps the last mails, newest first, with their bodies for the dev outbox page", async () => {
    const now = new Date("2026-03-01T09:00:00Z");
    const transport = createMailTransport({
      from: "no-reply@mteja.test",
      logger: captureLogger(),
      logMailBodies: false,
      keepRecent: 2,
      now: () => now,
    });
    await transport.send(mail({ id: "a" }));
    await transport.send(mail({ id: "b" }));
    await transport.send(mail({ id: "c" }));
    const recent = transport.recent?.() ?? [];
    expect(recent.map((sent) => sent.mailId)).toEqual(["c", "b"]);
    expect(recent[0]).toMatchObject({
      from: `"Duka \\"Bora\\"" <no-reply@mteja.test>`,
      to: "amina@example.com",
      sentAt: now,
      kind: "resetPassword",
    });
    expect(recent[0]?.text).toContain(token);
    await transport.close();
  });

  it("takes a sender with a display name, and shows the shop's name at its address", async () => {
    const transport = createMailTransport({ from: `"Mteja, Inc." <no-reply@mteja.test>`, logger: captureLogger(), logMailBodies: false });
    await transport.send(mail());
    await transport.send(mail({ id: "nameless", fromName: "" }));
    expect(transport.recent?.().map((sent) => sent.from)).toEqual([`"Mteja, Inc." <no-reply@mteja.test>`, `"Duka \\"Bora\\"" <no-reply@mteja.test>`]);
  });

  it("refuses a sender that is not one address", () => {
    expect(() => createMailTransport({ from: "Mteja no-reply@mteja.test", logger: captureLogger(), logMailBodies: false })).toThrow(/Mail sender/);
  });
});
