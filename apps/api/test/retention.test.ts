/**
 * Retention (docs/operations.md#retention): the pruning job deletes exactly the rows kept longer than
 * their RETENTION_*_DAYS, and nothing else — sent mails, spent tokens, ended sessions with their refresh
 * tokens, stored callbacks, finished webhook events with their attempts — while payments and users stay.
 * Rows are made through HTTP (a real SMTP receiver, the Daraja simulator, a real webhook receiver) on the
 * service's clock, which the test then moves. Two instances pruning at once share the work.
 */
import { openDatabase } from "@mteja/db";
import { afterAll, describe, expect } from "vitest";
import { startSmtpReceiver, type SmtpReceiver } from "@mteja/test-support/smtp-receiver";
import { registerUser, RestClient, type TestApp } from "./support/app.js";
import { testClock } from "./support/clock.js";
import { skipThisTarget, type TestDatabase } from "./support/database.js";
import { it } from "./support/fixture.js";
import type { DarajaApp } from "./support/daraja.js";
import { waitFor } from "./support/wait.js";
import { startReceiver, type Receiver } from "./support/webhook-receiver.js";

const day = 86_400;
const keptDays = 10;
const retention = {
  RETENTION_SENT_MAIL_DAYS: String(keptDays),
  RETENTION_ONE_TIME_TOKENS_DAYS: String(keptDays),
  RETENTION_ENDED_SESSIONS_DAYS: String(keptDays),
  RETENTION_CALLBACKS_DAYS: String(keptDays),
  RETENTION_WEBHOOK_EVENTS_DAYS: String(keptDays),
  // Small batches, so a prune takes several statements and two instances interleave.
  PRUNE_BATCH_SIZE: "2",
  // Instances on one database share the data key (the stored signing key is encrypted with it).
  DATA_ENCRYPTION_KEY: "ab".repeat(32),
};

/** Another connection pool on the same database (PostgreSQL), as a second instance would have; embedded has one. */
async function secondConnection(database: TestDatabase): Promise<TestDatabase> {
  if (!database.url) return { ...database, drop: async () => undefined };
  const db = await openDatabase({ url: database.url, poolMax: 5 });
  return { db, url: database.url, drop: () => db.close() };
}

it.override({ simOptions: { callbackDelayMs: 20 } });

describe.skipIf(skipThisTarget)("retention", () => {
  const clock = testClock();
  let t: DarajaApp;
  let smtp: SmtpReceiver;
  let hooks: Receiver;
  const cleanup: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const close of cleanup.reverse()) await close();
  });

  it.beforeAll(async ({ sim, launch }) => {
    smtp = await startSmtpReceiver();
    cleanup.push(() => smtp.stop());
    hooks = await startReceiver(() => ({ status: 200 }));
    cleanup.push(() => hooks.close());
    t = await launch.momo({ darajaUrl: sim.url, now: clock.now, env: { ...retention, SMTP_URL: smtp.url, WEBHOOK_RETRY_SCHEDULE: "0" } });
    const admin = new RestClient(t.url, "");
    const key = await admin.request("POST", "/api/v1/admin/tenants/default/api-keys", { body: { name: "Shop" }, headers: { authorization: "Bearer test-admin-key-0123456789" } });
    const endpoint = await admin.request("POST", "/api/v1/webhook-endpoints", { body: { url: hooks.url }, token: key.body.data.key });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
  });

  /**
   * One round of traffic at the clock's current time: a customer who verifies the address and signs out
   * (a sent mail, a spent token, an ended session) and a customer who pays (a stored callback, a
   * delivered webhook event; the session stays live, the verification token unspent).
   */
  async function traffic() {
    const leaving = new RestClient(t.url);
    const user = await registerUser(leaving);
    const mail = await smtp.waitForMail((m) => m.to.includes(user.email) && m.subject.startsWith("Confirm your email"));
    const link = new URL(/https?:\/\/\S+\/verify-email\?[^\s"<>]+/.exec(mail.text)![0]);
    const verified = await leaving.post("/api/v1/auth/verify-email", { token: link.searchParams.get("token"), email: user.email });
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    expect((await leaving.post("/api/v1/auth/logout")).status).toBe(200);

    const payer = await t.customer();
    const pushed = await t.rest.request("POST", "/api/momo/stkpush", { body: { phone: "0712345678", amount: 1 }, token: payer.accessToken });
    expect(pushed.status, JSON.stringify(pushed.body)).toBe(200);
    const payment = await waitFor(() =>
      t.deps.db.unscoped("test").payment.findFirst({ where: { checkoutRequestId: pushed.body.data.checkoutRequestId, status: "SUCCESS" } }),
    );
    await hooks.waitFor((d) => d.event.data.payment?.id === payment.id);
    await waitFor(async () => (await t.deps.db.unscoped("test").webhookDelivery.count({ where: { status: "pending" } })) === 0);
    await waitFor(async () => (await t.deps.db.unscoped("test").mailOutbox.count({ where: { sentAt: null } })) === 0);
    return { users: [user.id, payer.id], emails: [user.email, payer.email], paymentId: payment.id };
  }

  /** Rows of every kind the rules cover, and rows no rule covers. */
  async function counts() {
    const db = t.deps.db.unscoped("test");
    return {
      mails: await db.mailOutbox.count(),
      tokens: await db.oneTimeToken.count(),
      sessions: await db.session.count(),
      refreshTokens: await db.refreshToken.count(),
      callbacks: await db.darajaCallback.count(),
      events: await db.webhookEvent.count(),
      attempts: await db.webhookAttempt.count(),
      payments: await db.payment.count(),
      users: await db.user.count(),
    };
  }

  it("deletes exactly the rows older than their retention and nothing else, in batches shared by two instances", async ({ launch }) => {
    const db = t.deps.db.unscoped("test");
    const t0 = clock.now();
    const old = await traffic();
    clock.advance(5 * day);
    const recent = await traffic();

    // What the first round left past its retention once 10 days have passed: its sent mails, its spent
    // token, its ended session (with its refresh token), its callbacks, its delivered event (with its attempt).
    const oldMails = await db.mailOutbox.count({ where: { toAddress: { in: old.emails } } });
    const oldCallbacks = await db.darajaCallback.count({ where: { receivedAt: { lte: t0 } } });
    const oldEvents = await db.webhookEvent.findMany({ where: { createdAt: { lte: t0 } }, select: { id: true } });
    const oldEndedSession = await db.session.findFirstOrThrow({ where: { userId: old.users[0], revokedAt: { not: null } } });
    const oldEndedRefreshTokens = await db.refreshToken.count({ where: { sessionId: oldEndedSession.id } });
    const oldAttempts = await db.webhookAttempt.count({ where: { eventId: { in: oldEvents.map((e) => e.id) } } });
    expect(oldMails).toBeGreaterThanOrEqual(2);
    expect(oldCallbacks).toBeGreaterThanOrEqual(1);
    expect(oldEvents.length).toBeGreaterThanOrEqual(1);
    expect(oldAttempts).toBeGreaterThanOrEqual(1);
    const before = await counts();

    // One second short of the retention: nothing is old enough yet.
    clock.advance(5 * day - 1);
    const early = await t.retention.runOnce();
    expect(Object.keys(early)).toEqual(expect.arrayContaining(["sent_mail", "one_time_tokens", "ended_sessions", "callbacks", "webhook_events"]));
    expect(Object.values(early).every((n) => n === 0)).toBe(true);
    expect(await counts()).toEqual(before);

    // Two seconds later, two instances prune at once: together they delete each old row once, and only those.
    clock.advance(2);
    const other = await secondConnection(t.database);
    cleanup.push(() => other.drop());
    const second: TestApp = await launch.app(retention, { database: other, now: clock.now });
    const [a, b] = await Promise.all([t.retention.runOnce(), second.retention.runOnce()]);
    const deleted = Object.fromEntries(Object.keys(a).map((kind) => [kind, a[kind]! + b[kind]!]));
    expect(deleted).toMatchObject({ sent_mail: oldMails, one_time_tokens: 1, ended_sessions: 1, callbacks: oldCallbacks, webhook_events: oldEvents.length });

    expect(await counts()).toEqual({
      ...before,
      mails: before.mails - oldMails,
      tokens: before.tokens - 1,
      sessions: before.sessions - 1,
      refreshTokens: before.refreshTokens - oldEndedRefreshTokens,
      callbacks: before.callbacks - oldCallbacks,
      events: before.events - oldEvents.length,
      attempts: before.attempts - oldAttempts,
    });
    // The spent token of the first round is gone; its payer's unspent token (it expired 9 days ago) stays.
    expect(await db.oneTimeToken.count({ where: { userId: old.users[0] } })).toBe(0);
    expect(await db.oneTimeToken.count({ where: { userId: old.users[1] } })).toBe(1);
    // The payer's live session, both payments and every account stay; so does the whole second round.
    expect(await db.session.count({ where: { userId: old.users[1], revokedAt: null } })).toBe(1);
    expect(await db.payment.count({ where: { id: { in: [old.paymentId, recent.paymentId] } } })).toBe(2);
    expect(await db.mailOutbox.count({ where: { toAddress: { in: recent.emails } } })).toBeGreaterThanOrEqual(2);
    // A signed-out customer of the first round can still sign in: the account was not touched.
    const leaver = await db.user.findUniqueOrThrow({ where: { id: old.users[0] } });
    expect(leaver.emailVerified).toBe(true);
  });

  it("every instance prunes by itself every PRUNE_INTERVAL_SECONDS", async ({ launch }) => {
    const db = t.deps.db.unscoped("test");
    const client = new RestClient(t.url);
    const user = await registerUser(client);
    const leaving = await db.session.findFirstOrThrow({ where: { userId: user.id } });
    expect((await client.post("/api/v1/auth/logout")).status).toBe(200);
    clock.advance(keptDays * day + 1);
    const other = await secondConnection(t.database);
    cleanup.push(() => other.drop());
    await launch.app({ ...retention, PRUNE_INTERVAL_SECONDS: "1" }, { database: other, now: clock.now });
    await waitFor(async () => (await db.session.count({ where: { id: leaving.id } })) === 0, { timeoutMs: 15_000 });
    expect(await db.user.count({ where: { id: user.id } })).toBe(1);
  });
});
