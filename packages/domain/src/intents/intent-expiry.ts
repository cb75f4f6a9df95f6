/**
 * Expiring intents (docs/payment-intents.md#statuses, "Expiry"): every intent still waiting for payment past
 * expires_at becomes `expired`, and each one's payment_intent.expired event is written in the same
 * transaction, so the feed and the rows never disagree and a conditional update reports each expiry
 * once, whichever read, payment or reconciler run got there first.
 */
import { intents, type Database, type TenantDb, type TenantTx, type UnscopedDb, type UnscopedTx } from "@mteja/db";
import { recordEvent } from "../webhooks/events.js";
import { statusesAllowing } from "./intent-transitions.js";
import { toIntentView } from "./views.js";

// Typed as the two transaction clients, not `AnyClient & RawSql`: against that intersection TypeScript
// compared Prisma's plain and extended client types member by member, 42 of the domain build's 50 s.
async function expireIn(tx: TenantTx | UnscopedTx, now: Date): Promise<number> {
  // Intents waiting for payment past expires_at (never one that is processing).
  const expired = await intents.expireDue(tx, { from: statusesAllowing("expire"), to: "expired", at: now });
  for (const intent of expired) {
    await recordEvent(tx, { tenantId: intent.tenantId, livemode: intent.livemode, type: "payment_intent.expired", data: { payment_intent: toIntentView(intent) }, at: now });
  }
  return expired.length;
}

/** The intents due to expire at `now`: waiting for payment past expires_at (for intents.anyDue and its kin). */
export function dueIntents(now: Date): intents.DueLook {
  return { from: statusesAllowing("expire"), at: now };
}

/**
 * Expires the tenant's due intents; run before an intent is read, paid, cancelled or its reference reused.
 * Looked for with one read first: most requests find none, and skip the transaction's three round trips.
 */
export async function expireDueIntents(database: Database, db: TenantDb, now: Date): Promise<number> {
  if (!(await intents.anyDue(db, dueIntents(now)))) return 0;
  return expireFoundIntents(database, db, now);
}

/** expireDueIntents once a read of its own found due intents (intents.findRowAndAnyDue). */
export function expireFoundIntents(database: Database, db: TenantDb, now: Date): Promise<number> {
  return database.transaction(db, (tx) => expireIn(tx, now));
}

/** The reconciler's sweep: every tenant's due intents. */
export function expireDueIntentsOfAllTenants(database: Database, unscoped: UnscopedDb, now: Date): Promise<number> {
  return database.transaction(unscoped, (tx) => expireIn(tx, now));
}
