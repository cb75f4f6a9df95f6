import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createMailTransport, createOutboxWorker, newOutboxMail, type MailTransport } from "../src/index.js";
import { captureLogger } from "./support/capture-logger.js";
import { noJitter } from "./support/no-jitter.js";
import { MemoryOutboxStore } from "./support/memory-outbox-store.js";
import { startSmtpReceiver, type SmtpReceiver } from "@mteja/test-support/smtp-receiver";

const token = "c0ffee".repeat(10) + "abcd";
const link = `https://duka.example/verify-email?token=${token}&email=amina%40example.com`;
// Quotes, a comma, angle brackets and a non-ASCII letter: all need quoting or encoding in From.
const tenantName = `Mama Njeri's "Café", <Nairobi>`;

describe("delivery over SMTP", () => {
  let receiver: SmtpReceiver;
  let transport: MailTransport;
  let current: Date;
  const now = () => current;
  const advance = (ms: number) => {
    current = new Date(current.getTime() + ms);
  };

  beforeEach(async () => {
    current = new Date("2026-03-01T09:00:00Z");
    receiver = await startSmtpReceiver();
    transport = createMailTransport({
      smtpUrl: receiver.url,
      from: "no-reply@mteja.test",
      logger: captureLogger(),
      logMailBodies: false,
    });
  });

  afterEach(async () => {
    await transport.close();
    await receiver.stop();
  });

  function queueVerification(store: MemoryOutboxStore) {
    return store.insert(
      newOutboxMail("verifyEmail", { userName: "Amina", link }, { tenantId: "duka", tenantName, to: "amina@example.com" }),
      now(),
    );
  }

  it("sends due mails with the tenant as sender name, text and HTML", async () => {
    const store = new MemoryOutboxStore();
    const row = queueVerification(store);
    const logger = captureLogger();
    const worker = createOutboxWorker({ store, transport, logger, now, random: noJitter });

    expect(await worker.runOnce()).toEqual({ sent: 1, failed: 0 });

    const received = await receiver.waitForMail((mail) => mail.to.includes("amina@example.com"));
    expect(received.from).toEqual({ name: tenantName, address: "no-reply@mteja.test" });
    expect(received.envelopeFrom).toBe("no-reply@mteja.test");
    expect(received.subject).toBe(`Confirm your email for ${tenantName}`);
    expect(received.text).toContain(`\n\n${link}\n\n`);
    expect(received.html).toContain(`href="https://duka.example/verify-email?token=${token}&amp;email=amina%40example.com"`);
    expect(received.headers["message-id"]).toBe(`<outbox.${row.id}@mteja.test>`);
    expect(received.headers["auto-submitted"]).toBe("auto-generated");
    expect(row.sentAt).toEqual(current);
    expect(JSON.stringify(logger.entries)).not.toContain(token);

    expect(await worker.runOnce()).toEqual({ sent: 0, failed: 0 });
    expect(receiver.mails).toHaveLength(1);
  });

  it("reports an unreachable server as such", async () => {
    await receiver.stop();
    const store = new MemoryOutboxStore();
    queueVerification(store);
    const [mail] = await store.claimDue({ limit: 1, now: now(), leaseMs: 1000 });
    await expect(transport.send(mail!)).rejects.toMatchObject({ name: "MailDeliveryError", serverUnavailable: true });
  });

  it("keeps mail through an outage and delivers it exactly once after recovery", async () => {
    const store = new MemoryOutboxStore();
    const row = queueVerification(store);
    const logger = captureLogger();
    const worker = createOutboxWorker({ store, transport, logger, now, random: noJitter });

    await receiver.stop();
    expect(await worker.runOnce()).toEqual({ sent: 0, failed: 1 });
    expect(row).toMatchObject({ attempts: 1, sentAt: undefined, nextAttemptAt: new Date(current.getTime() + 2_000) });
    expect(row.lastError).toBeTruthy();
    expect(row.lastError).not.toContain(token);
    expect(logger.entries.filter((entry) => entry.level === "warn")).toHaveLength(1);

    // Not due yet: nothing is tried.
    expect(await worker.runOnce()).toEqual({ sent: 0, failed: 0 });

    advance(2_000);
    expect(await worker.runOnce()).toEqual({ sent: 0, failed: 1 });
    expect(row).toMatchObject({ attempts: 2, nextAttemptAt: new Date(current.getTime() + 4_000) });

    await receiver.restart();
    advance(4_000);
    expect(await worker.runOnce()).toEqual({ sent: 1, failed: 0 });
    await receiver.waitForMail();
    advance(60 * 60_000);
    expect(await worker.runOnce()).toEqual({ sent: 0, failed: 0 });

    expect(receiver.mails).toHaveLength(1);
    expect(receiver.mails[0]?.text).toContain(link);
    expect(row.sentAt).toBeDefined();
    expect(JSON.stringify(logger.entries)).not.toContain(token);
  });

  it("sends everything queued during an outage once the server is back, through the background loop", async () => {
    const store = new MemoryOutboxStore();
    for (let i = 0; i < 5; i++) queueVerification(store);
    // Real time here: the background loop runs on its own.
    const worker = createOutboxWorker({
      store,
      transport,
      logger: captureLogger(),
      intervalMs: 20,
      baseBackoffMs: 50,
      random: noJitter,
    });
    await receiver.stop();
    worker.start();
    await expect.poll(() => store.rows.every((row) => row.attempts >= 1)).toBe(true);
    await receiver.restart();
    await expect.poll(() => receiver.mails.length, { timeout: 5_000 }).toBe(5);
    await worker.stop();
    expect(store.rows.every((row) => row.sentAt !== undefined)).toBe(true);
    expect(new Set(receiver.mails.map((mail) => mail.headers["message-id"])).size).toBe(5);
  });
});
