/**
 * Callbacks without the right token can be posted by anyone, as fast as they like: each is answered
 * 403 and counted in a metric, but only a bounded number a minute are stored (disk) and a flood is
 * logged as one line a minute (log volume). The limit is lowered through RATE_LIMIT_RULES.
 */
import { logCapture } from "./support/log-lines.js";
import { describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import type { Simulator } from "./support/simulator.js";
import { createMetrics } from "../src/http/metrics.js";
import { testClock } from "./support/clock.js";
import { skipThisTarget } from "./support/database.js";
import { postCallback, stkCallbackBody, uniqueReceipt, type DarajaApp } from "./support/daraja.js";
import { sample } from "./support/metrics.js";

it.override({ simOptions: { callbacks: false } });

describe.skipIf(skipThisTarget)("momo callbacks without the right token", () => {
  const logLines: Array<Record<string, any>> = [];
  const clock = testClock();
  const metrics = createMetrics();
  let fake: Simulator;
  let t: DarajaApp;
  it.beforeAll(async ({ sim, launch }) => {
    fake = sim;
    const { stream: logStream } = logCapture(logLines);
    t = await launch.momo({
      darajaUrl: fake.url,
      now: clock.now,
      logStream,
      metrics,
      env: { LOG_LEVEL: "warn", RATE_LIMIT_RULES: "unauthenticated_callbacks_stored=3/60" },
    });
  });

  const rejectedLines = () => logLines.filter((line) => String(line.msg).startsWith("momo callback rejected"));
  const scrape = async () => metrics.registry.metrics();

  it("answers every one 403, counts every one, stores 3 (here) a minute, logs one line a minute, and still applies genuine callbacks", async () => {
    const marker = `forged-${uniqueReceipt()}`;
    const forged = { Body: { stkCallback: { MerchantRequestID: marker, CheckoutRequestID: marker, ResultCode: 0, ResultDesc: "ok" } } };
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await postCallback(t.callbackUrl("stkpush", null), forged));
    for (let i = 0; i < 4; i++) answers.push(await postCallback(t.callbackUrl("b2c/result", "0".repeat(64)), forged));
    for (const answer of answers) expect(answer).toMatchObject({ status: 403, body: { success: false, error: { code: "FORBIDDEN" } } });

    const stored = await t.deps.db.unscoped("test").darajaCallback.findMany({ where: { outcome: "rejected", rawBody: JSON.stringify(forged) } });
    expect(stored).toHaveLength(3);

    const text = await scrape();
    expect(sample(text, "mteja_momo_callbacks_rejected_total", { kind: "stkpush", reason: "no_token", stored: "true" })).toBe(3);
    expect(sample(text, "mteja_momo_callbacks_rejected_total", { kind: "stkpush", reason: "no_token", stored: "false" })).toBe(3);
    expect(sample(text, "mteja_momo_callbacks_rejected_total", { kind: "b2c_result", reason: "wrong_token", stored: "false" })).toBe(4);

    expect(rejectedLines()).toHaveLength(1);
    expect(rejectedLines()[0]).toMatchObject({ kind: "stkpush", reason: "no token", stored: true, notLoggedSinceLastLine: 0 });

    // A minute later (the service's clock) the next one is logged again, with the number held back.
    clock.advance(61);
    await postCallback(t.callbackUrl("stkpush", "wrong"), forged);
    expect(rejectedLines()).toHaveLength(2);
    expect(rejectedLines()[1]).toMatchObject({ reason: "wrong token", notLoggedSinceLastLine: 9 });

    // The cap is on unauthenticated callbacks only: a genuine one is stored and applied.
    const user = await t.customer();
    const pushed = await t.rest.post("/api/momo/stkpush", { phone: "0712345678", amount: 100 }, user.accessToken);
    const ids = pushed.body.data as { checkoutRequestId: string; merchantRequestId: string };
    const genuine = await postCallback(t.callbackUrl("stkpush"), stkCallbackBody(ids, 0, { amount: 100, receipt: uniqueReceipt(), phone: "254712345678" }));
    expect(genuine).toEqual({ status: 200, body: { ResultCode: 0, ResultDesc: "Accepted" } });
    expect(await t.deps.db.unscoped("test").darajaCallback.findMany({ where: { correlationId: ids.checkoutRequestId } })).toMatchObject([{ outcome: "applied" }]);
  });
});
