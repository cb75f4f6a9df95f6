/**
 * Reads and writes of the payment_intents table, through the tenant's scoped client (expiring
 * intents, with their events, is intent-expiry.ts; its reconciler sweep crosses tenants). Each status change is a
 * conditional update whose `WHERE status IN (...)` comes from the state machine, so a terminal intent
 * never changes, whatever raced it.
 */
import type { PaymentIntentModel, TenantDb, TenantTx } from "@mteja/db";
import { statusesAllowing, type IntentEvent, type IntentStatus } from "./intent-transitions.js";
import { latestReversal, type PaymentRow } from "../payments/kernel/payment-object.js";

export type IntentWithPayments = PaymentIntentModel & { payments: PaymentRow[] };

export const withPayments = { payments: { orderBy: [{ createdAt: "asc" as const }, { id: "asc" as const }], include: latestReversal } };

export interface NewIntentRow {
  id: string;
  tenantId: string;
  amount: number;
  reference: string;
  description: string | null;
  userId: string | null;
  metadata: Record<string, string>;
  idempotencyKey: string | null;
  requestHash: string | null;
  expiresAt: Date;
  createdAt: Date;
}

export function insertIntent(db: TenantDb, row: NewIntentRow): Promise<IntentWithPayments> {
  return db.paymentIntent.create({ data: { ...row, status: "requires_payment", updatedAt: row.createdAt }, include: withPayments });
}

export function findIntent(db: TenantDb, id: string): Promise<IntentWithPayments | null> {
  return db.paymentIntent.findFirst({ where: { id }, include: withPayments });
}

export function findIntentByIdempotencyKey(db: TenantDb, idempotencyKey: string): Promise<IntentWithPayments | null> {
  return db.paymentIntent.findFirst({ where: { idempotencyKey }, include: withPayments });
}

/** An open intent (requires_payment or processing) whose reference equals this one, case-insensitively. */
export async function openIntentWithReference(db: TenantDb, reference: string): Promise<boolean> {
  const found = await db.paymentIntent.findFirst({
    where: { reference: { equals: reference, mode: "insensitive" }, status: { in: ["requires_payment", "processing"] } },
    select: { id: true },
  });
  return found !== null;
}

/** One page, newest first, after the intent `afterId` (the cursor); undefined when the cursor is not an intent of this tenant. */
export async function listIntentPage(db: TenantDb, page: { status?: IntentStatus | undefined; take: number; afterId?: string | undefined }): Promise<IntentWithPayments[] | undefined> {
  let after = {};
  if (page.afterId) {
    const last = await db.paymentIntent.findFirst({ where: { id: page.afterId }, select: { id: true, createdAt: true } });
    if (!last) return undefined;
    after = { OR: [{ createdAt: { lt: last.createdAt } }, { createdAt: last.createdAt, id: { lt: last.id } }] };
  }
  return db.paymentIntent.findMany({
    where: { ...after, ...(page.status ? { status: page.status } : {}) },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: page.take,
    include: withPayments,
  });
}

/** Applies `event` if the intent is in a status that allows it; false when it was not (or there is no such intent). */
export async function transitionIntent(db: TenantDb | TenantTx, id: string, event: IntentEvent, next: IntentStatus, now: Date, extraWhere: object = {}): Promise<boolean> {
  const { count } = await db.paymentIntent.updateMany({
    where: { id, status: { in: statusesAllowing(event) }, ...extraWhere },
    data: { status: next, updatedAt: now },
  });
  return count === 1;
}

/** Intents still waiting for payment past expires_at: the where of the expiry step (never one that is processing). */
/** Intents waiting for payment past expires_at (never one that is processing). */
export function dueToExpire(now: Date) {
  return { status: { in: statusesAllowing("expire") }, expiresAt: { lte: now } };
}
