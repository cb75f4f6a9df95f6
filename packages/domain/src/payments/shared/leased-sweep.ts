/**
 * What the reconciler's sweeps share (docs/mpesa.md#reconciliation). Each sweep claims its due rows
 * with FOR UPDATE SKIP LOCKED and leases them by pushing their next query time forward, so several
 * instances can run at once without querying one row twice; the lease is short and renewed while the
 * sweep works through its rows, so a crashed instance's rows come back soon
 * (docs/deployment.md#leases-and-crashed-instances). A row Daraja has not settled comes back after a
 * backoff (the one of @mteja/shared), and Daraja calls are paced so reconciliation never trips its
 * spike arrest.
 */
import { DarajaError, type DarajaClient } from "@mteja/daraja";
import { leases, type TenantDb, type UnscopedDb } from "@mteja/db";
import { backoffAfter, createLeaseKeeper } from "@mteja/shared";
import type { PaymentPorts } from "./ports.js";
import type { MoneyMode } from "./money-mode.js";
import { lastErrorOf } from "./provider-errors.js";

export interface ReconcileOptions {
  /** Rows claimed per kind per run. */
  batchSize: number;
  /** Minimum pause between two Daraja calls of this reconciler. */
  paceMs: number;
  /** How long a claimed row stays reserved for this run, renewed while it works (MOMO_RECONCILE_LEASE_SECONDS). */
  leaseSeconds: number;
  baseBackoffSeconds: number;
  maxBackoffSeconds: number;
  /** A payment Daraja cannot settle this long after creation is marked FAILED. */
  giveUpAfterSeconds: number;
  /** A payout still unsettled this long after creation is no longer queried (it stays UNKNOWN). */
  payoutGiveUpAfterSeconds: number;
  /** A refund still unsettled this long after creation is no longer queried (it stays UNKNOWN). */
  refundGiveUpAfterSeconds: number;
}

export const defaultReconcileOptions: ReconcileOptions = {
  batchSize: 20,
  paceMs: 200,
  leaseSeconds: 10,
  baseBackoffSeconds: 30,
  maxBackoffSeconds: 30 * 60,
  giveUpAfterSeconds: 24 * 3600,
  payoutGiveUpAfterSeconds: 72 * 3600,
  refundGiveUpAfterSeconds: 72 * 3600,
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
  refundsQueried: number;
  refundsGivenUp: number;
  /** Short codes pulled (Pull Transactions) and the receipts the pulls recovered. */
  pullsRun: number;
  receiptsRecovered: number;
  errors: number;
}

/** One run of the reconciler, as each sweep sees it. */
export interface SweepRun {
  deps: PaymentPorts;
  options: ReconcileOptions;
  report: ReconcileReport;
  /** The Daraja client of a row's tenant for the row's mode (docs/test-mode.md); null when it has none. */
  clientFor(tenantId: string, of: MoneyMode): Promise<DarajaClient | null>;
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

/**
 * The rows a sweep claimed (leased until `until`), one at a time, while their leases are kept: a row is
 * given when the sweep comes to it if its lease is still held, and its lease is no longer kept once the
 * sweep moves on (its work wrote the row's next query time). A row whose lease was lost (the database
 * was away for most of a lease) is skipped: another instance may be querying it. The leases stop being
 * kept when the loop ends, however it ends.
 */
export function* leasedRows<Row extends { id: string }>(
  run: SweepRun,
  table: leases.LeasedTable,
  claimed: readonly Row[],
  until: Date,
): Generator<Row> {
  if (claimed.length === 0) return;
  const { deps } = run;
  const keeper = createLeaseKeeper({
    leaseMs: run.options.leaseSeconds * 1000,
    now: () => deps.clock.now(),
    renew: (held, to) => leases.renew(deps.db.unscoped("worker"), table, held, to),
    onError: (error) => deps.logger.warn({ err: error, table }, "reconciliation leases not renewed"),
  });
  try {
    for (const row of claimed) keeper.hold(row.id, until);
    for (const row of claimed) {
      if (!keeper.holds(row.id)) {
        deps.logger.warn({ table, id: row.id }, "reconciliation lease lost: the row is left to the next claim");
        continue;
      }
      yield row;
      keeper.release(row.id);
    }
  } finally {
    keeper.close();
  }
}

/** What a failed query leaves in last_error. */
export function queryErrorNote(error: unknown): string {
  return error instanceof DarajaError ? lastErrorOf(error) : String((error as Error)?.message ?? error);
}

/** A row a status-query sweep claimed (payouts, refunds: their repositories' claimDueStatusQueries). */
export interface ClaimedForStatus {
  id: string;
  tenant_id: string;
  livemode: boolean;
  status_query_attempts: number;
  created_at: Date;
}

/** A request whose outcome is still open: queried until Daraja settles it. */
const openStatuses = ["PENDING", "UNKNOWN"] as const;

/** What a status-query sweep writes to a row still open. */
interface OpenRowChanges {
  status?: "UNKNOWN";
  nextStatusQueryAt: Date | null;
  lastError?: string;
  updatedAt?: Date;
}

/** One kind of request a Transaction Status sweep queries (payouts, refunds): its table and its query. */
export interface StatusQuerySweep<Row extends ClaimedForStatus> {
  table: "payouts" | "refunds";
  /** What the rows are, for log lines ("payout", "refund"). */
  what: string;
  /** Rows older than this are no longer queried: they stay UNKNOWN for a person to check. */
  giveUpAfterSeconds: number;
  /** The repository's claim of due rows (FOR UPDATE SKIP LOCKED, leased until `leaseUntil`). */
  claim(
    db: UnscopedDb,
    due: { statuses: readonly string[]; now: Date; leaseUntil: Date; limit: number },
  ): Promise<Row[]>;
  /** The repository's write to a row only while its status is still one of `status`; true when it did. */
  updateIfStill(
    db: TenantDb,
    still: { id: string; status: readonly string[] },
    changes: OpenRowChanges,
  ): Promise<boolean>;
  /** Sends the Transaction Status query; its result callback settles the row. */
  query(client: DarajaClient, row: Row): Promise<unknown>;
  /** Log fields naming the row. */
  describe(row: Row): object;
  /** Counts in the run's report. */
  count: { queried(): void; givenUp(): void };
}

export const statusQueriesExhausted = "status queries exhausted: the outcome is unknown; check it on the M-Pesa portal";

/**
 * Claims the due PENDING/UNKNOWN rows of a table and queries each through its tenant's Daraja account
 * (paced), or gives it up when it is too old: it stays UNKNOWN, no longer queried, and is logged for review
 * (never FAILED: the money may have moved). Never settles a row itself: Daraja's answer does.
 */
export async function queryDueForStatus<Row extends ClaimedForStatus>(
  run: SweepRun,
  sweep: StatusQuerySweep<Row>,
): Promise<void> {
  const { deps, options, report } = run;
  const now = deps.clock.now();
  const due = { statuses: openStatuses, now, leaseUntil: leaseEnd(run, now), limit: options.batchSize };
  const claimed = await sweep.claim(deps.db.unscoped("worker"), due);
  const stillOpen = (row: Row) => ({ id: row.id, status: openStatuses });
  for (const row of leasedRows(run, sweep.table, claimed, due.leaseUntil)) {
    const db = deps.db.forTenant(row.tenant_id);
    const age = deps.clock.now().getTime() - new Date(row.created_at).getTime();
    if (age >= sweep.giveUpAfterSeconds * 1000) {
      const changes = { status: "UNKNOWN" as const, nextStatusQueryAt: null, lastError: statusQueriesExhausted };
      if (await sweep.updateIfStill(db, stillOpen(row), { ...changes, updatedAt: deps.clock.now() })) {
        sweep.count.givenUp();
        deps.logger.error(sweep.describe(row), `${sweep.what} status still unknown: needs manual review`);
      }
      continue;
    }
    let lastError: string | null = null;
    try {
      const client = await run.clientFor(row.tenant_id, row);
      if (!client) throw new Error("M-Pesa is not configured for this tenant");
      await run.pace();
      sweep.count.queried();
      await sweep.query(client, row);
    } catch (error) {
      report.errors += 1;
      lastError = queryErrorNote(error);
      deps.logger.warn({ ...sweep.describe(row), error: lastError }, "Transaction Status query failed");
    }
    const next = nextAttemptAt(run, Number(row.status_query_attempts));
    const noted = lastError ? { lastError: lastError.slice(0, 500) } : {};
    await sweep.updateIfStill(db, stillOpen(row), { nextStatusQueryAt: next, ...noted });
  }
}
