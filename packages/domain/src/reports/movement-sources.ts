/**
 * Where the daily report's rows come from: one entry per kind of money movement, each read in the
 * order it settled (packages/db's settledMovements, a page at a time) and written as a row. The report
 * merges them by settlement time; on the same instant the earlier entry of this list comes first.
 *
 * A new kind of movement is one entry here (and its page read in the repository). A reversal is a
 * refund of a whole payment (the reversal operation writes refunds too), so it is written once, as a
 * `refund` whose channel is its method.
 */
import { settledMovements, type TenantDb } from "@mteja/db";
import type { PaymentStatus, PayoutStatus } from "../payments/shared/schemas.js";
import { refundIdOf } from "../payments/refunds/refund-object.js";

/** The kinds of rows of the report (its `type` column). */
export type MovementType = "payment" | "refund" | "payout";

/** A row of the report before it is written: every column but `livemode`, which is the report's mode. */
export interface MovementRow {
  settledAt: Date;
  type: MovementType;
  /** The row's id in its table: where the next page starts after it. */
  key: string;
  /** The id the API shows (a refund's `re_…`). */
  id: string;
  /** payment: stk | c2b; refund: its method (reversal | b2c); payout: b2c. */
  channel: string;
  reference: string | null;
  /** Shillings, positive whichever way the money went (`type` says which). */
  amount: number;
  mpesaReceipt: string | null;
  status: string;
}

export interface MovementSource {
  /** The statuses of rows whose money moved: a failed or undecided one moved none. */
  statuses: readonly string[];
  /** One page of the kind's rows, in the order they settled (the page's cursor is its last row's `key`). */
  read(db: TenantDb, page: settledMovements.SettledPage): Promise<MovementRow[]>;
}

const payments: MovementSource = {
  statuses: ["SUCCESS"] satisfies PaymentStatus[],
  read: async (db, page) => (await settledMovements.paymentsPage(db, page)).map((p) => ({
    settledAt: p.settledAt,
    type: "payment",
    key: p.id,
    id: p.id,
    channel: p.channel === "c2b" ? "c2b" : "stk",
    reference: p.reference,
    amount: p.amount,
    mpesaReceipt: p.mpesaReceipt,
    status: p.status,
  })),
};

/** A refund gives money back, by Daraja's Reversal (the whole payment) or by B2C: its method is its channel. */
const refunds: MovementSource = {
  statuses: ["SUCCESS"],
  read: async (db, page) => (await settledMovements.refundsPage(db, page)).map((r) => ({
    settledAt: r.settledAt,
    type: "refund",
    key: r.id,
    // As the API and the refund events show it (re_…), so a row matches its refund.succeeded.
    id: refundIdOf(r.id),
    channel: r.method,
    reference: r.payment.reference,
    amount: r.amount,
    mpesaReceipt: r.receipt,
    status: r.status,
  })),
};

/** A payout has no reference of its own: its occasion when the shop gave one, else its remarks. */
const payouts: MovementSource = {
  statuses: ["SUCCESS"] satisfies PayoutStatus[],
  read: async (db, page) => (await settledMovements.payoutsPage(db, page)).map((p) => ({
    settledAt: p.settledAt,
    type: "payout",
    key: p.id,
    id: p.id,
    channel: "b2c",
    reference: p.occasion ?? p.remarks,
    amount: p.amount,
    mpesaReceipt: p.transactionId,
    status: p.status,
  })),
};

export const movementSources: readonly MovementSource[] = [payments, refunds, payouts];
