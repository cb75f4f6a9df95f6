/**
 * A payment's reversal as the server API and the events show it (`payment.reversal`, docs/mpesa.md#reversals):
 * its latest refund by reversal, a refund sent by B2C not being one.
 */
import type { RefundModel } from "@mteja/db";

export const reversalStatuses = ["PENDING", "SUCCESS", "FAILED", "UNKNOWN"] as const;
export type ReversalStatus = (typeof reversalStatuses)[number];

export interface ReversalObject {
  status: ReversalStatus;
  /** Daraja's ResultDesc once it answered; for an UNKNOWN one, why its outcome is not known. */
  reason: string | null;
  /** The reversal's own M-Pesa receipt, once it succeeded. */
  receipt: string | null;
  updated_at: string;
}

/** The latest reversal among a payment's refunds, newest first (null: none was requested). */
export function reversalObject(refunds: readonly RefundModel[] | undefined): ReversalObject | null {
  const row = refunds?.find((refund) => refund.method === "reversal");
  if (!row) return null;
  return {
    status: row.status as ReversalStatus,
    reason: row.resultDesc ?? (row.status === "UNKNOWN" || row.status === "FAILED" ? row.lastError : null),
    receipt: row.receipt,
    updated_at: row.updatedAt.toISOString(),
  };
}
