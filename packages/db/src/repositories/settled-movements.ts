/**
 * The money movements settled in a window of time, read for a report (docs/reports.md): payments,
 * payouts and refunds, each family a page at a time in the order they settled (settled_at, then id),
 * on a keyset, so a day of any size is read in pages of the caller's size and never whole. Through a
 * tenant's client: only that tenant's rows. Which statuses count as money that moved is the caller's
 * rule (`statuses`). Each read takes only the columns a report writes.
 */
import type { Prisma } from "../generated/prisma/client.js";
import type { TenantDb } from "../tenant-scope.js";

/** The window a report covers, and what it counts, from its caller. */
export interface SettledWindow {
  /** Settled at or after. */
  from: Date;
  /** Settled before. */
  to: Date;
  /** The statuses of the rows to read (a money movement that happened, not one that failed). */
  statuses: readonly string[];
}

/** Where the previous page ended: its last row's settlement time and id. */
export interface SettledCursor {
  settledAt: Date;
  id: string;
}

/** One page: the window, the page's size, and the end of the page before (none: the first page). */
export interface SettledPage {
  window: SettledWindow;
  after?: SettledCursor | undefined;
  take: number;
}

/**
 * The condition and order every family's page shares, so what a report reads (a mode, when there is one
 * to filter on) is said in one place. After a cursor the lower bound starts at it: the index
 * (tenant_id, settled_at, id) is entered at the cursor, not at the day's start, for every page.
 */
function pageOf({ window, after, take }: SettledPage) {
  const where = {
    status: { in: [...window.statuses] },
    settledAt: { gte: after && after.settledAt > window.from ? after.settledAt : window.from, lt: window.to },
    ...(after ? { OR: [{ settledAt: { gt: after.settledAt } }, { id: { gt: after.id } }] } : {}),
  };
  return { where, orderBy: [{ settledAt: "asc" as const }, { id: "asc" as const }], take };
}

const paymentColumns = {
  id: true,
  settledAt: true,
  channel: true,
  reference: true,
  amount: true,
  mpesaReceipt: true,
  status: true,
} satisfies Prisma.PaymentSelect;

/** A payment (STK or C2B) as a report reads it. */
export type SettledPayment = Prisma.PaymentGetPayload<{ select: typeof paymentColumns }> & { settledAt: Date };

export async function paymentsPage(db: TenantDb, page: SettledPage): Promise<SettledPayment[]> {
  return (await db.payment.findMany({ ...pageOf(page), select: paymentColumns })) as SettledPayment[];
}

const payoutColumns = {
  id: true,
  settledAt: true,
  amount: true,
  remarks: true,
  occasion: true,
  transactionId: true,
  status: true,
} satisfies Prisma.PayoutSelect;

/** A B2C payout as a report reads it. */
export type SettledPayout = Prisma.PayoutGetPayload<{ select: typeof payoutColumns }> & { settledAt: Date };

export async function payoutsPage(db: TenantDb, page: SettledPage): Promise<SettledPayout[]> {
  return (await db.payout.findMany({ ...pageOf(page), select: payoutColumns })) as SettledPayout[];
}

const refundColumns = {
  id: true,
  settledAt: true,
  amount: true,
  method: true,
  receipt: true,
  status: true,
  // The order it gave money back for: the refunded payment's reference (a refund has none of its own).
  payment: { select: { reference: true } },
} satisfies Prisma.RefundSelect;

/** A refund (by Reversal or B2C) as a report reads it, with its payment's reference. */
export type SettledRefund = Prisma.RefundGetPayload<{ select: typeof refundColumns }> & { settledAt: Date };

export async function refundsPage(db: TenantDb, page: SettledPage): Promise<SettledRefund[]> {
  return (await db.refund.findMany({ ...pageOf(page), select: refundColumns })) as SettledRefund[];
}
