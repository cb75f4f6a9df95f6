/**
 * The events of a refund's settlement (docs/webhooks.md#events), written in the transaction that changes
 * its status.
 */
import type { RawSql, RefundModel } from "@mteja/db";
import { recordEvent, type EventIds, type NewEvent } from "../../webhooks/events.js";
import { refundObject } from "./refund-object.js";

/**
 * The event of a refund whose status just changed: SUCCESS → refund.succeeded, FAILED → refund.failed;
 * undefined for UNKNOWN, which is not an outcome (nothing is sent).
 */
export function refundSettledEvent(refund: RefundModel, at: Date): NewEvent | undefined {
  const type =
    refund.status === "SUCCESS" ? "refund.succeeded" : refund.status === "FAILED" ? "refund.failed" : undefined;
  return type ? { tenantId: refund.tenantId, livemode: refund.livemode, type, data: { refund: refundObject(refund) }, at } : undefined;
}

/** Writes the event of a refund whose status just changed (refundSettledEvent). */
export async function recordRefundSettled(
  tx: RawSql,
  refund: RefundModel,
  at: Date,
  eventIds?: EventIds,
): Promise<void> {
  const event = refundSettledEvent(refund, at);
  if (event) await recordEvent(tx, event, eventIds);
}
