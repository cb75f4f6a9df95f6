/**
 * Expiring intents (docs/payment-intents.md#statuses, "Expiry"): every intent still waiting for payment past
 * expires_at becomes `expired`, and each one's payment_intent.expired event is written in the same
 * transaction, so the feed and the rows never disagree and a conditional update reports each expiry
 * once, whichever read, payment or reconciler run got there first.
 */
import type { PrismaClient, TenantDb } from "@mteja/db";
import { asTransaction, type Tx } from "../payments/kernel/payment-records.js";
import { recordEvent } from "../webhooks/events.js";
import { dueToExpire, withPayments } from "./intent-store.js";
import { toIntentView } from "./views.js";

async function expireIn(tx: Tx, now: Date): Promise<number> {
  const expired = await tx.paymentIntent.updateManyAndReturn({ where: dueToExpire(now), data: { status: "expired", updatedAt: now }, select: { id: true } });
  if (expired.length === 0) return 0;
  const intents = await tx.paymentIntent.findMany({ where: { id: { in: expired.map((row) => row.id) } }, include: withPayments });
  for (const intent of intents) {
    await recordEvent(tx, { tenantId: intent.tenantId, type: "payment_intent.expired", data: { payment_intent: toIntentView(intent) }, at: now });
  }
  return expired.length;
}

/** Expires the tenant's due intents; run before an intent is read, paid, cancelled or its reference reused. */
export function expireDueIntents(db: TenantDb, now: Date): Promise<number> {
  return db.$transaction((tx) => expireIn(asTransaction(tx), now));
}

/** The reconciler's sweep: every tenant's due intents. */
export function expireDueIntentsOfAllTenants(unscoped: PrismaClient, now: Date): Promise<number> {
  return unscoped.$transaction((tx) => expireIn(tx, now));
}
