/**
 * Delivery reports from Africa's Talking (docs/sms.md#delivery-reports) at
 * `POST /api/sms/callback/delivery?token=`. Nothing in a report is signed, so the URL carries a secret
 * (SMS_CALLBACK_SECRET), checked in constant time as the momo callbacks' is: missing or wrong → 403.
 * A report is applied to the text it names, monotonically (a final status is never left); unknown ids
 * and unreadable bodies are answered 200 so Africa's Talking does not retry them forever.
 */
import { outboxes } from "@mteja/db";
import { deliveryStatusAdvances, parseDeliveryReport } from "@mteja/sms";
import type { SmsPorts } from "./ports.js";
import { callbackTokenValid } from "../shared/secrets.js";

export interface DeliveryReportReply {
  status: number;
  body: unknown;
  /** Set when the token was missing or wrong. */
  rejected?: "no token" | "wrong token";
}

export async function receiveDeliveryReport(deps: SmsPorts, report: { token: string | undefined; rawBody: string }): Promise<DeliveryReportReply> {
  if (!callbackTokenValid(deps.config.smsCallbackSecret, report.token)) {
    return {
      status: 403,
      body: { success: false, message: "This callback address needs its secret token.", error: { code: "FORBIDDEN" } },
      rejected: report.token === undefined ? "no token" : "wrong token",
    };
  }
  const parsed = parseDeliveryReport(report.rawBody);
  if (!parsed) {
    deps.logger.warn({}, "SMS delivery report unreadable; ignored");
    return { status: 200, body: { received: true } };
  }
  // Several reports can race for one text: the row is locked while the order is decided.
  await deps.db.transaction(deps.db.unscoped("sms-delivery-report"), async (tx) => {
    const text = await outboxes.lockTextByMessageId(tx, parsed.id);
    if (!text) {
      deps.logger.info({ messageId: parsed.id }, "SMS delivery report for an unknown message; ignored");
      return;
    }
    if (!deliveryStatusAdvances(text.deliveryStatus, parsed.status)) return;
    const { status, failureReason } = parsed;
    await outboxes.recordDeliveryReport(tx, text.id, { status, failureReason, at: deps.clock.now() });
  });
  return { status: 200, body: { received: true } };
}
