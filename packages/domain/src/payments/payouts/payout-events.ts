/** The events a payout's settlement writes (docs/webhooks.md#events), in the transaction that changes its status. */
import type { PayoutModel, RawSql } from "@mteja/db";
import { recordEvent, type NewEvent } from "../../webhooks/events.js";
import { payoutObject } from "./payout-object.js";

/**
 * The event of a payout whose status just changed: SUCCESS → payout.succeeded, FAILED → payout.failed;
 * undefined for UNKNOWN, which is not an outcome (nothing is sent).
 */
export function payoutSettledEvent(payout: PayoutModel, at: Date): NewEvent | undefined {
  const type = payout.status === "SUCCESS" ? "payout.succeeded" : payout.status === "FAILED" ? "payout.failed" : undefined;
  return type ? { tenantId: payout.tenantId, livemode: payout.livemode, type, data: { payout: payoutObject(payout) }, at } : undefined;
}

/** Writes the event of a payout whose status just changed (payoutSettledEvent). */
export async function recordPayoutSettled(tx: RawSql, payout: PayoutModel, at: Date): Promise<void> {
  const event = payoutSettledEvent(payout, at);
  if (event) await recordEvent(tx, event);
}
