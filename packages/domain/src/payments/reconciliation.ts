/**
 * The reconciler (docs/mpesa.md#reconciliation: a payment still PENDING after 2 minutes is
 * reconciled with an STK query). One run:
 *
 *  1. applies STK callbacks kept for a CheckoutRequestID that is now stored, and flags those no
 *     payment claimed within the in-flight window;
 *  2. times out payments that never got a CheckoutRequestID (the push's outcome was unknown, or the
 *     service stopped while waiting for Daraja) and that no callback matched within
 *     MOMO_UNKNOWN_PROMPT_WINDOW_SECONDS: TIMEOUT, never FAILED-and-resent;
 *  3. STK-queries due PENDING payments and settles them from the answer (apply-once path);
 *  4. sends a Transaction Status query for due PENDING/UNKNOWN payouts, then for due PENDING/UNKNOWN
 *     refunds, by reversal or by B2C (refunds/refund-reconciliation.ts; the result callbacks settle them);
 *  4a. pulls the short codes registered for Pull Transactions whose pull is due, and applies the
 *     receipts no confirmation brought (pull/pull-sweep.ts);
 *  5. expires payment intents still waiting for payment past expires_at (intents/intent-expiry-sweep.ts).
 *
 * Steps 1-4 are the sweeps each flow declares (`<flow>/flow.ts`), run in the order of the flow
 * registry (flows.ts, handed over by the composition root): stk/stk-reconciliation.ts,
 * payouts/payout-reconciliation.ts, refunds/refund-reconciliation.ts; the claiming, leasing, backoff
 * and pacing they share are shared/leased-sweep.ts.
 *
 * Giving up: Daraja ends every prompt within minutes (1037 / 1019 are terminal), so a payment that
 * Daraja still cannot settle 24 hours after it was created is marked FAILED ("reconciliation
 * exhausted"); FAILED means "not confirmed paid", and a late success callback for it is flagged for
 * review. A payout or a refund is never marked FAILED by giving up (the money may have moved): after
 * `payoutGiveUpAfterSeconds` (`refundGiveUpAfterSeconds`) it stays UNKNOWN, is no longer queried, and is
 * logged for review.
 */
import { tenants as tenantsRepository } from "@mteja/db";
import type { DarajaClient } from "@mteja/daraja";
import type { PaymentPorts } from "./shared/ports.js";
import type { MoneyMode } from "./shared/money-mode.js";
import { toTenant, type Tenant } from "../shared/tenant.js";
import { defaultReconcileOptions, type ReconcileOptions, type ReconcileReport, type SweepRun } from "./shared/leased-sweep.js";
import { sweepExpiredIntents } from "../intents/intent-expiry-sweep.js";
import type { DarajaFlow } from "./shared/flow.js";

export { defaultReconcileOptions, type ReconcileOptions, type ReconcileReport };

export interface Reconciler {
  runOnce(): Promise<ReconcileReport>;
}

/** `flows`: the flow registry (payments/flows.ts), whose sweeps run in its order. */
export function createReconciler(
  flows: readonly DarajaFlow[],
  getDeps: () => PaymentPorts,
  overrides: Partial<ReconcileOptions> = {},
): Reconciler {
  const options: ReconcileOptions = { ...defaultReconcileOptions, ...overrides };
  let lastCallAt: number | undefined;

  async function pace(): Promise<void> {
    const { clock } = getDeps();
    const wait = lastCallAt === undefined ? 0 : lastCallAt + options.paceMs - clock.monotonicMs();
    if (wait > 0) await clock.sleep(wait);
    lastCallAt = clock.monotonicMs();
  }

  return {
    async runOnce() {
      const deps = getDeps();
      const report: ReconcileReport = {
        heldCallbacksApplied: 0,
        heldCallbacksFlagged: 0,
        paymentsTimedOut: 0,
        paymentsQueried: 0,
        paymentsSettled: 0,
        paymentsExhausted: 0,
        payoutsQueried: 0,
        payoutsGivenUp: 0,
        refundsQueried: 0,
        refundsGivenUp: 0,
        pullsRun: 0,
        receiptsRecovered: 0,
        errors: 0,
      };
      const tenants = new Map<string, Tenant | undefined>();
      const tenantOf = async (id: string) => {
        if (!tenants.has(id)) {
          const row = await tenantsRepository.findTenant(deps.db.unscoped("worker"), id);
          tenants.set(id, row ? toTenant(row) : undefined);
        }
        return tenants.get(id);
      };
      const clientFor = async (tenantId: string, of: MoneyMode): Promise<DarajaClient | null> => {
        const tenant = await tenantOf(tenantId);
        return tenant ? deps.daraja.darajaFor(tenant, of) : null;
      };

      const run: SweepRun = { deps, options, report, clientFor, pace };
      for (const flow of flows) {
        for (const sweep of flow.sweeps ?? []) await sweep(run);
      }
      await sweepExpiredIntents(run); // payment intents past expires_at
      return report;
    },
  };
}

