/**
 * What the reconciler's sweeps share (docs/mpesa.md#reconciliation). Each sweep claims its due rows
 * with FOR UPDATE SKIP LOCKED and leases them by pushing their next query time forward, so several
 * instances can run at once without querying one row twice; a row Daraja has not settled comes back
 * after a backoff (the one of @mteja/kernel), and Daraja calls are paced so reconciliation never trips
 * its spike arrest.
 */
import { DarajaError, type DarajaClient } from "@mteja/daraja";
import { backoffAfter } from "@mteja/kernel";
import type { Deps } from "../../context.js";
import { lastErrorOf } from "../provider-errors.js";

export interface ReconcileOptions {
  /** Rows claimed per kind per run. */
  batchSize: number;
  /** Minimum pause between two Daraja calls of this reconciler. */
  paceMs: number;
  /** How long a claimed row stays reserved for this run. */
  leaseSeconds: number;
  baseBackoffSeconds: number;
  maxBackoffSeconds: number;
  /** A payment Daraja cannot settle this long after creation is marked FAILED. */
  giveUpAfterSeconds: number;
  /** A payout still unsettled this long after creation is no longer queried (it stays UNKNOWN). */
  payoutGiveUpAfterSeconds: number;
  /** A reversal still unsettled this long after creation is no longer queried (it stays UNKNOWN). */
  reversalGiveUpAfterSeconds: number;
}

export const defaultReconcileOptions: ReconcileOptions = {
  batchSize: 20,
  paceMs: 200,
  leaseSeconds: 60,
  baseBackoffSeconds: 30,
  maxBackoffSeconds: 30 * 60,
  giveUpAfterSeconds: 24 * 3600,
  payoutGiveUpAfterSeconds: 72 * 3600,
  reversalGiveUpAfterSeconds: 72 * 3600,
};

export interface ReconcileReport {
  heldCallbacksApplied: number;
  heldCallbacksFlagged: number;
  paymentsTimedOut: number;
  paymentsQueried: number;
  paymentsSettled: number;
  paymentsExhausted: number;
  payoutsQueried: number;
  payoutsGivenUp: number;
  reversalsQueried: number;
  reversalsGivenUp: number;
  errors: number;
}

/** One run of the reconciler, as each sweep sees it. */
export interface SweepRun {
  deps: Deps;
  options: ReconcileOptions;
  report: ReconcileReport;
  /** The Daraja client of a row's tenant (cached for the run); null when it has none. */
  clientFor(tenantId: string): Promise<DarajaClient | null>;
  /** Waits until the next Daraja call is allowed. */
  pace(): Promise<void>;
}

export function backoffSeconds(attempts: number, options: Pick<ReconcileOptions, "baseBackoffSeconds" | "maxBackoffSeconds">): number {
  return backoffAfter(attempts, { base: options.baseBackoffSeconds, max: options.maxBackoffSeconds }).delay;
}

/** When a claimed row that Daraja did not settle is due again. */
export function nextAttemptAt(run: SweepRun, attempts: number): Date {
  return new Date(run.deps.clock.now().getTime() + backoffSeconds(attempts, run.options) * 1000);
}

/** The end of the lease on rows claimed at `claimedAt`. */
export function leaseEnd(run: SweepRun, claimedAt: Date): Date {
  return new Date(claimedAt.getTime() + run.options.leaseSeconds * 1000);
}

/** What a failed query leaves in last_error. */
export function queryErrorNote(error: unknown): string {
  return error instanceof DarajaError ? lastErrorOf(error) : String((error as Error)?.message ?? error);
}
