/**
 * The SMS outbox (docs/sms.md) through HTTP with the real SMS simulator: texts sent with the
 * transactional sender ID, retried after Africa's Talking's failures (the plain-text 401, a request
 * refused with no recipients, a 5xx), a final per-recipient refusal not retried, delivery reports at
 * /api/sms/callback/delivery with and without the token, and the dev outbox of texts.
 */
import { describe, expect } from "vitest";
import type { SmsSimulator } from "@mteja/sms-sim";
import { it } from "./support/fixture.js";
import { RestClient, type TestApp } from "./support/app.js";
import { testClock } from "./support/clock.js";
import { skipThisTarget } from "./support/database.js";
import { SMS_CALLBACK_SECRET, textsTo, uniquePhone } from "./support/sms.js";

const clock = testClock();
it.override({ appOptions: { now: clock.now } });

describe.skipIf(skipThisTarget)("SMS delivery", () => {
  let t: TestApp;
  let sim: SmsSimulator;

  it.beforeAll(({ smsApp }) => {
    ({ app: t, sim } = smsApp);
  });

  async function outboxRow(international: string) {
    const answer = await new RestClient(t.url).get(`/dev/outbox/texts?to=${encodeURIComponent(international)}`);
    expect(answer.status).toBe(200);
    return answer.body.data.texts[0] as Record<string, unknown> | undefined;
  }

  async function startFor(phone: ReturnType<typeof uniquePhone>) {
    expect((await new RestClient(t.url).post("/api/v1/auth/phone/start", { phone: phone.local })).status).toBe(200);
    await expect.poll(() => outboxRow(phone.international), { timeout: 10_000 }).toBeDefined();
  }

  it("sends a text, keeps it in the dev outbox, and applies the delivery reports", async () => {
    const phone = uniquePhone();
    await startFor(phone);
    await expect.poll(() => textsTo(sim, phone.international).length, { timeout: 10_000 }).toBe(1);
    await expect.poll(async () => (await outboxRow(phone.international))?.delivery_status, { timeout: 10_000 }).toBe("Success");
    const row = (await outboxRow(phone.international))!;
    expect(row).toMatchObject({ kind: "phone_code", to: phone.international, send_status: "Success", attempts: 0, last_error: null });
    expect(row.body).toBe(textsTo(sim, phone.international)[0]!.message);
    const reports = sim.reports.filter((r) => r.form.phoneNumber === phone.international);
    expect(reports.map((r) => [r.form.status, r.status])).toEqual([["Submitted", 200], ["Success", 200]]);
  });

  it("retries after the plain-text 401, a refused request and a 5xx, with the one backoff", async () => {
    for (const failure of [
      { script: { kind: "unauthorized" as const }, error: /401: The supplied authentication is invalid/ },
      { script: { kind: "request_refused" as const, message: "InvalidSenderId" }, error: /InvalidSenderId/ },
      { script: { kind: "http" as const, status: 502, body: "<html>Bad Gateway</html>" }, error: /HTTP 502/ },
    ]) {
      const phone = uniquePhone();
      sim.script(failure.script);
      await startFor(phone);
      await expect.poll(async () => (await outboxRow(phone.international))?.attempts, { timeout: 10_000 }).toBe(1);
      const failed = (await outboxRow(phone.international))!;
      expect(failed.last_error).toMatch(failure.error);
      expect(failed.sent_at).toBeNull();
      expect(textsTo(sim, phone.international)).toHaveLength(0);
      // Due again after the backoff (2 s at most after the first failure), on the service clock.
      clock.advance(3);
      await expect.poll(() => textsTo(sim, phone.international).length, { timeout: 10_000 }).toBe(1);
      await expect.poll(async () => (await outboxRow(phone.international))?.sent_at, { timeout: 10_000 }).not.toBeNull();
    }
  });

  it("does not retry a recipient Africa's Talking refuses for good", async () => {
    const phone = uniquePhone();
    sim.script({ kind: "recipient", statusCode: 406 });
    await startFor(phone);
    await expect.poll(async () => (await outboxRow(phone.international))?.send_status, { timeout: 10_000 }).toBe("406 UserInBlacklist");
    const row = (await outboxRow(phone.international))!;
    expect(row).toMatchObject({ delivery_status: "Rejected", attempts: 0 });
    clock.advance(60);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(textsTo(sim, phone.international)).toHaveLength(1);
  });

  it("keeps a failed delivery final: a late intermediate report does not undo it", async () => {
    const phone = uniquePhone();
    sim.script({ kind: "delivery", status: "Failed", failureReason: "UserInBlackList" });
    await startFor(phone);
    await expect.poll(async () => (await outboxRow(phone.international))?.delivery_status, { timeout: 10_000 }).toBe("Failed");
    const messageId = textsTo(sim, phone.international)[0]!.messageId!;
    const late = await fetch(`${t.url}/api/sms/callback/delivery?token=${SMS_CALLBACK_SECRET}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ id: messageId, status: "Buffered", phoneNumber: phone.international, networkCode: "63902", retryCount: "0" }).toString(),
    });
    expect(late.status).toBe(200);
    expect((await outboxRow(phone.international))!.delivery_status).toBe("Failed");
  });

  it("refuses delivery reports without the token or with a wrong one, and answers unknown ids 200", async () => {
    const body = new URLSearchParams({ id: "ATXid_00000000000000000000000000000000", status: "Success", phoneNumber: "+254700000000", networkCode: "63902" }).toString();
    const post = (query: string) =>
      fetch(`${t.url}/api/sms/callback/delivery${query}`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body });
    const none = await post("");
    expect(none.status).toBe(403);
    expect(((await none.json()) as { error: { code: string } }).error.code).toBe("FORBIDDEN");
    expect((await post("?token=wrong-token")).status).toBe(403);
    expect((await post(`?token=${SMS_CALLBACK_SECRET}`)).status).toBe(200);
  });

  it("shows the dev outbox of texts to loopback callers only, never cached", async () => {
    const answer = await new RestClient(t.url).get("/dev/outbox/texts");
    expect(answer.status).toBe(200);
    expect(answer.headers.get("cache-control")).toBe("no-store");
    expect(Array.isArray(answer.body.data.texts)).toBe(true);
  });
});
