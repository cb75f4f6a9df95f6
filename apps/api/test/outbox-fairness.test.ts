/**
 * The mail and SMS outboxes claim fairly between tenants (docs/mail.md, docs/sms.md): one shop's
 * backlog of hundreds of mails or texts takes a quarter of a claim (5 of 20), so another shop's single
 * mail or text goes out in the next batch, not after the backlog. Through the real stores, on both
 * databases, driven by the one leased outbox worker as the service runs it.
 */
import { outboxes, type Database } from "@mteja/db";
import { createOutboxWorker, isMailKind, type MailTransport, type OutboxMail } from "@mteja/mailer";
import { createSmsOutboxWorker, type OutboxText, type SmsTransport } from "@mteja/sms";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestDatabase, skipThisTarget, type TestDatabase } from "./support/database.js";

const t0 = new Date("2030-01-01T08:00:00.000Z");
const at = (ms: number) => new Date(t0.getTime() + ms);
const quiet = { info() {}, warn() {}, error() {} };
const noJitter = { int: () => 0 };

describe.skipIf(skipThisTarget)("the outboxes' fair claims", () => {
  let database: TestDatabase;
  let db: Database;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = database.db;
    await db.migrate();
  });
  afterAll(async () => database?.drop());
  beforeEach(async () => {
    await db.unscoped("test").mailOutbox.deleteMany();
    await db.unscoped("test").smsOutbox.deleteMany();
  });

  /** `count` rows of a tenant, due one millisecond apart from `from`. */
  function mails(tenantId: string, count: number, from: number) {
    return Array.from({ length: count }, (_, i) => ({
      tenantId,
      kind: "passwordChanged",
      toAddress: `${tenantId}-${i}@example.com`,
      fromName: tenantId,
      subject: "Your password was changed",
      textBody: "text",
      htmlBody: "<p>html</p>",
      nextAttemptAt: at(from + i),
      createdAt: at(from + i),
    }));
  }
  function texts(tenantId: string, count: number, from: number) {
    return Array.from({ length: count }, (_, i) => ({
      tenantId,
      kind: "phone_code",
      toPhone: `+2547${String(i).padStart(8, "0")}`,
      body: "Your code is 123456",
      expiresAt: null,
      nextAttemptAt: at(from + i),
      createdAt: at(from + i),
    }));
  }

  it("mail: a shop's backlog of 300 takes 5 of a claim of 20; another shop's single mail is in that claim", async () => {
    await db.unscoped("test").mailOutbox.createMany({ data: [...mails("busy", 300, 0), ...mails("calm", 1, 10_000)] });
    const store = outboxes.createMailStore(db.unscoped("test"), { isKind: isMailKind, scrubBodiesOnSend: false });
    const claimed = await store.claimDue({ limit: 20, now: at(60_000), leaseMs: 60_000, perTenant: 5 });
    expect(claimed.map((mail) => mail.tenantId).sort()).toEqual(["busy", "busy", "busy", "busy", "busy", "calm"]);
    // The backlog's oldest, oldest due first.
    expect(claimed.filter((mail) => mail.tenantId === "busy").map((mail) => mail.to)).toEqual([0, 1, 2, 3, 4].map((i) => `busy-${i}@example.com`));

    // The worker as the service runs it (batches of 20): the other shop's mail goes out in the first batch.
    await db.unscoped("test").mailOutbox.deleteMany();
    await db.unscoped("test").mailOutbox.createMany({ data: [...mails("busy", 300, 0), ...mails("calm", 1, 10_000)] });
    const sent: OutboxMail[] = [];
    const transport: MailTransport = { send: async (mail) => void sent.push(mail), close: async () => {} };
    const worker = createOutboxWorker({ store, transport, logger: quiet, now: () => at(60_000), random: noJitter });
    expect(await worker.runOnce()).toEqual({ sent: 6, failed: 0 });
    expect(sent.filter((mail) => mail.tenantId === "calm")).toHaveLength(1);
    expect(await db.unscoped("test").mailOutbox.count({ where: { tenantId: "calm", sentAt: null } })).toBe(0);
  });

  it("SMS: a shop's backlog of 300 texts takes 5 of a claim of 20; another shop's single text is sent in the first batch", async () => {
    await db.unscoped("test").smsOutbox.createMany({ data: [...texts("busy", 300, 0), ...texts("calm", 1, 10_000)] });
    const store = outboxes.createTextStore(db.unscoped("test"), { scrubBodiesOnSend: false });
    const claimed = await store.claimDue({ limit: 20, now: at(60_000), leaseMs: 60_000, perTenant: 5 });
    expect(claimed.map((text) => text.tenantId).sort()).toEqual(["busy", "busy", "busy", "busy", "busy", "calm"]);

    await db.unscoped("test").smsOutbox.deleteMany();
    await db.unscoped("test").smsOutbox.createMany({ data: [...texts("busy", 300, 0), ...texts("calm", 1, 10_000)] });
    const sent: OutboxText[] = [];
    const transport: SmsTransport = {
      send: async (text) => {
        sent.push(text);
        return { outcome: "accepted", messageId: `ATX${sent.length}`, status: "Success" };
      },
    };
    const worker = createSmsOutboxWorker({ store, transport, logger: quiet, now: () => at(60_000), random: noJitter });
    expect(await worker.runOnce()).toEqual({ sent: 6, failed: 0 });
    expect(sent.filter((text) => text.tenantId === "calm")).toHaveLength(1);
  });

  it("takes tenants in turns and never gives two claims at once the same row", async () => {
    await db.unscoped("test").mailOutbox.createMany({ data: [...mails("a", 10, 0), ...mails("b", 10, 100), ...mails("c", 10, 200)] });
    const store = outboxes.createMailStore(db.unscoped("test"), { isKind: isMailKind, scrubBodiesOnSend: false });
    const claim = () => store.claimDue({ limit: 6, now: at(60_000), leaseMs: 60_000, perTenant: 3 });
    const [first, second] = await Promise.all([claim(), claim()]);
    const ids = [...first!, ...second!].map((mail) => mail.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const batch of [first!, second!]) {
      const perTenant = new Map<string, number>();
      for (const mail of batch) perTenant.set(mail.tenantId, (perTenant.get(mail.tenantId) ?? 0) + 1);
      expect(Math.max(...perTenant.values())).toBeLessThanOrEqual(3);
    }
    // One claim of 6 with every tenant's backlog waiting: two of each.
    await db.unscoped("test").mailOutbox.deleteMany();
    await db.unscoped("test").mailOutbox.createMany({ data: [...mails("a", 10, 0), ...mails("b", 10, 100), ...mails("c", 10, 200)] });
    expect((await claim()).map((mail) => mail.tenantId).sort()).toEqual(["a", "a", "b", "b", "c", "c"]);
  });
});
