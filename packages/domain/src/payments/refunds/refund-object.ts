/**
 * A refund as the server API and the events show it (`GET /api/v1/refunds/{id}`, `data.refund` of
 * refund.succeeded / refund.failed; docs/mpesa.md#refunds): one serialiser. Its id is `re_` and the 32
 * hex digits of the row's uuid, so the reversals moved from payment_reversals have one too.
 */
import type { RefundModel } from "@mteja/db";

export const refundStatuses = ["pending", "succeeded", "failed", "unknown"] as const;
export type RefundStatus = (typeof refundStatuses)[number];

export const refundMethods = ["reversal", "b2c"] as const;
export type RefundMethod = (typeof refundMethods)[number];

/** The row's status (PENDING | SUCCESS | FAILED | UNKNOWN, as payouts and reversals) as the refund shows it. */
const shownStatus: Readonly<Record<string, RefundStatus>> = {
  PENDING: "pending",
  SUCCESS: "succeeded",
  FAILED: "failed",
  UNKNOWN: "unknown",
};

/** A refund's id as the API shows it: `re_` and 32 lower-case hex digits. */
export const REFUND_ID_PATTERN = /^re_[0-9a-f]{32}$/;

export function refundIdOf(uuid: string): string {
  return `re_${uuid.replace(/-/g, "").toLowerCase()}`;
}

/** The row's uuid of an id that matches REFUND_ID_PATTERN. */
export function refundUuidOf(id: string): string {
  const hex = id.slice(3);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export interface RefundObject {
  id: string;
  payment_id: string;
  amount: number;
  method: RefundMethod;
  status: RefundStatus;
  reason: string | null;
  /** The refund's own M-Pesa receipt, once it succeeded. */
  mpesa_receipt: string | null;
  livemode: boolean;
  created_at: string;
  updated_at: string;
}

export function refundObject(refund: RefundModel): RefundObject {
  return {
    id: refundIdOf(refund.id),
    payment_id: refund.paymentId,
    amount: refund.amount,
    method: refund.method as RefundMethod,
    status: shownStatus[refund.status] ?? "pending",
    reason: refund.reason,
    mpesa_receipt: refund.receipt,
    livemode: refund.livemode,
    created_at: refund.createdAt.toISOString(),
    updated_at: refund.updatedAt.toISOString(),
  };
}
