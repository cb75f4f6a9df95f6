/**
 * The mail outbox (docs/mail.md): the Prisma OutboxStore's claim/lease semantics on both
 * databases, delivery surviving an SMTP outage (exactly one mail once the server is back), the dev
 * outbox page outside production, and bodies scrubbed after sending in production.
 */
import { outboxes, type Database } from "@mteja/db";
import { isMailKind, newOutboxMail } from "@mteja/mailer";
import { afterAll, beforeAll, beforeEach, describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { startSmtpReceiver, type SmtpReceiver } from "@mteja/test-support/smtp-receiver";
import { RestClient, registerUser, type TestApp } from "./support/app.js";
import { createTestDatabase, skipThisTarget, type TestDatabase } from "./support/database.js";

async function until<T>(probe: () => Promise<T | undefined | null | false>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function sampleMail(to: string, kind: "passwordChanged" | "passwordReset" = "passwordChanged") {
  return newOutboxMail(kind, { userName: "Amina", when: new Date() }, { tenantId: "default", tenantName: "Mteja Shop", to });
}

describe.skipIf(skipThisTarget)("outbox store (Prisma)", () => {
  let database: TestDatabase;
  let db: Database;
  const store = () => outboxes.createMailStore(db.unscoped("test"), { isKind: isMailKind, scrubBodiesOnSend: true });
  const t0 = new Date("2030-01-01T08:00:00.000Z");
  const at = (ms: number) => new Date(t0.getTime() + ms);

  beforeAll(async () => {
    database = await createTestDatabase();
    db = database.db;
    await db.migrate();
  });
  afterAll(async () => database?.drop());
  beforeEach(async () => {
    await db.unscoped("test").mailOutbox.deleteMany();
  });

  async function insert(to: string, now: Date) {
    return db.transaction(db.unscoped("test"), (tx) => outboxes.enqueueMail(tx, sampleMail(to), now));
  }

  it("claims due mails oldest first and leases them without counting an attempt", async () => {
    const late = await insert("late@example.com", at(2_000));
    const early = await insert("early@example.com", at(1_000));
    await insert("future@example.com", at(60_000));

    const claimed = await store().claimDue({ limit: 10, now: at(5_000), leaseMs: 30_000 });
    expect(claimed.map((mail) => mail.id)).toEqual([early, late]);
    expect(claimed[0]).toMatchObject({ to: "early@example.com", fromName: "Mteja Shop", kind: "passwordChanged", attempts: 0, tenantId: "default" });
    expect(claimed[0]!.text).toContain("Amina");
    expect(claimed[0]!.html).toContain("<");

    // Leased: not claimable again until the lease runs out.
    expect(await store().claimDue({ limit: 10, now: at(10_000), leaseMs: 30_000 })).toEqual([]);
    const afterLease = await store().claimDue({ limit: 10, now: at(35_000), leaseMs: 30_000 });
    expect(afterLease.map((mail) => mail.id).sort()).toEqual([early, late].sort());
    const row = await db.unscoped("test").mailOutbox.findUniqueOrThrow({ where: { id: early } });
    expect(row.attempts).toBe(0);
    expect(row.nextAttemptAt).toEqual(at(65_000));
  });

  it("respects the limit, and concurrent claims never return the same mail", async () => {
    for (let i = 0; i < 12; i++) await insert(`m${i}@example.com`, at(i));
    expect(await store().claimDue({ limit: 3, now: at(100), leaseMs: 1_000 })).toHaveLength(3);
    const [a, b] = await Promise.all([
      store().claimDue({ limit: 5, now: at(200), leaseMs: 1_000 }),
      store().claimDue({ limit: 5, now: at(200), leaseMs: 1_000 }),
    ]);
    // Two claims at once may pick the same candidates; the second then skips the rows the first
    // locked and takes fewer (the fair claim locks only what it picked), never the same row.
    expect(a!.length + b!.length).toBeGreaterThanOrEqual(5);
    const rest = await store().claimDue({ limit: 10, now: at(200), leaseMs: 1_000 });
    const ids = [...a!, ...b!, ...rest].map((mail) => mail.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(9);
  });

  it("markFailed records the attempt and postpones; markSent is final, idempotent and scrubs the bodies", async () => {
    const id = await insert("retry@example.com", at(0));
    await store().claimDue({ limit: 1, now: at(0), leaseMs: 60_000 });
    await store().markFailed(id, { error: "ECONNECTION: refused", nextAttemptAt: at(2_000), attempts: 1 });
    let row = await db.unscoped("test").mailOutbox.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ attempts: 1, lastError: "ECONNECTION: refused", nextAttemptAt: at(2_000), sentAt: null });

    const [again] = await store().claimDue({ limit: 1, now: at(2_000), leaseMs: 60_000 });
    expect(again).toMatchObject({ id, attempts: 1 });
    await store().markSent(id, at(2_500));
    await store().markSent(id, at(9_999));
    // A late failure report (a second instance) does not undo the delivery.
    await store().markFailed(id, { error: "late", nextAttemptAt: at(4_000), attempts: 2 });
    row = await db.unscoped("test").mailOutbox.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ sentAt: at(2_500), attempts: 1, textBody: "", htmlBody: "", lastError: null });
    expect(row.subject).toBe("Your Mteja Shop password was changed");
    expect(await store().claimDue({ limit: 10, now: at(1_000_000), leaseMs: 1_000 })).toEqual([]);
  });

  it("a mail written in a transaction that rolls back does not exist", async () => {
    await expect(
      db.transaction(db.unscoped("test"), async (tx) => {
        await outboxes.enqueueMail(tx, sampleMail("rolled-back@example.com"), at(0));
        throw new Error("the change failed");
      }),
    ).rejects.toThrow("the change failed");
    expect(await db.unscoped("test").mailOutbox.count({ where: { toAddress: "rolled-back@example.com" } })).toBe(0);
  });

  it("leaves a kind it does not know leased for an instance that knows it", async () => {
    const fromTheFuture = { ...sampleMail("new@example.com"), kind: "fromTheFuture" };
    const id = await db.transaction(db.unscoped("test"), (tx) => outboxes.enqueueMail(tx, fromTheFuture, at(0)));
    expect(await store().claimDue({ limit: 10, now: at(0), leaseMs: 1_000 })).toEqual([]);
    const row = await db.unscoped("test").mailOutbox.findUniqueOrThrow({ where: { id } });
    expect(row.sentAt).toBeNull();
    expect(row.nextAttemptAt).toEqual(at(1_000));
  });
});

describe.skipIf(skipThisTarget)("mail delivery through an SMTP outage", () => {
  let t: TestApp;
  let receiver: SmtpReceiver;

  it.beforeAll(async ({ launch }) => {
    receiver = await startSmtpReceiver();
    t = await launch.app({ SMTP_URL: receiver.url });
  });
  afterAll(async () => {
    await receiver?.stop();
  });

  it("registration succeeds while the mail server is down; the mail arrives exactly once when it is back", async () => {
    await receiver.stop();
    const client = new RestClient(t.url);
    const started = Date.now();
    const user = await registerUser(client);
    expect(Date.now() - started).toBeLessThan(5_000);

    const failed = await until(async () => {
      const row = await t.deps.db.unscoped("test").mailOutbox.findFirst({ where: { toAddress: user.email } });
      return row && row.attempts >= 1 ? row : undefined;
    });
    expect(failed.sentAt).toBeNull();
    expect(failed.lastError).toMatch(/ECONNECTION|ESOCKET|ECONNREFUSED/);
    expect(receiver.mails.filter((mail) => mail.to.includes(user.email))).toHaveLength(0);

    await receiver.restart();
    const mail = await receiver.waitForMail((m) => m.to.includes(user.email), 30_000);
    expect(mail.subject).toBe("Confirm your email for Mteja Shop");
    const sent = await until(async () => {
      const row = await t.deps.db.unscoped("test").mailOutbox.findUniqueOrThrow({ where: { id: failed.id } });
      return row.sentAt ? row : undefined;
    });
    expect(sent.attempts).toBeGreaterThanOrEqual(1);
    // Give a duplicate every chance to show up.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(receiver.mails.filter((m) => m.to.includes(user.email))).toHaveLength(1);

    // The link in the delayed mail still verifies the account.
    const link = new URL(/https?:\/\/\S+\/verify-email\?[^\s"<>]+/.exec(mail.text)![0]);
    const verified = await client.post("/api/v1/auth/verify-email", {
      token: link.searchParams.get("token"),
      email: link.searchParams.get("email"),
    });
    expect(verified.status).toBe(200);
  });
});

describe.skipIf(skipThisTarget)("dev outbox (no SMTP_URL, not production)", () => {
  let t: TestApp;
  it.beforeAll(async ({ launch }) => {
    t = await launch.app();
  });

  it("lists recent mails with their text, so the verification link can be followed", async () => {
    const client = new RestClient(t.url);
    const user = await registerUser(client);
    const listed = await until(async () => {
      const result = await client.get(`/dev/outbox?to=${encodeURIComponent(user.email)}`);
      expect(result.status).toBe(200);
      const mail = result.body.data.mails[0];
      return mail?.sent_at ? result : undefined;
    });
    expect(listed.headers.get("cache-control")).toBe("no-store");
    const [mail] = listed.body.data.mails;
    expect(listed.body.data.mails).toHaveLength(1);
    expect(mail).toMatchObject({ to: user.email, kind: "verifyEmail", subject: "Confirm your email for Mteja Shop", from_name: "Mteja Shop", tenant_id: "default" });
    expect(new Date(mail.sent_at).getTime()).toBeGreaterThan(0);

    const link = new URL(/https?:\/\/\S+\/verify-email\?[^\s"<>]+/.exec(mail.text)![0]);
    expect(`${link.origin}${link.pathname}`).toBe("http://localhost:3000/verify-email");
    const verified = await client.post("/api/v1/auth/verify-email", {
      token: link.searchParams.get("token"),
      email: link.searchParams.get("email"),
    });
    expect(verified.status).toBe(200);

    const other = await registerUser(client);
    const all = await client.get("/dev/outbox");
    const recipients = all.body.data.mails.map((m: { to: string }) => m.to);
    expect(recipients.indexOf(other.email)).toBeLessThan(recipients.indexOf(user.email));
  });
});

describe.skipIf(skipThisTarget)("production: no dev outbox, bodies scrubbed once sent", () => {
  let t: TestApp;
  it.beforeAll(async ({ launch }) => {
    t = await launch.app({ NODE_ENV: "production" });
  });

  it("answers 404 for /dev/outbox and keeps no live link after sending", async () => {
    const client = new RestClient(t.url);
    const page = await client.get("/dev/outbox");
    expect(page.status).toBe(404);
    expect(page.body.error.code).toBe("NOT_FOUND");

    const user = await registerUser(client);
    const row = await until(async () => {
      const found = await t.deps.db.unscoped("test").mailOutbox.findFirst({ where: { toAddress: user.email } });
      return found?.sentAt ? found : undefined;
    });
    expect(row.textBody).toBe("");
    expect(row.htmlBody).toBe("");
    expect(row.subject).toBe("Confirm your email for Mteja Shop");
  });
});
