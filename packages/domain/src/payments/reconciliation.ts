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
 *  4. sends a Transaction Status query for due PENDING/UNKNOWN payouts (the result callback settles them).
 *
 * Rows are claimed with FOR UPDATE SKIP LOCKED and leased by pushing their next query time forward,
 * so several instances can run at once without querying one payment twice. Each payment backs off
 * exponentially; Daraja calls are paced so reconciliation never trips its spike arrest.
 *
 * Giving up: Daraja ends every prompt within minutes (1037 / 1019 are terminal), so a payment that
 * Daraja still cannot settle 24 hours after it was created is marked FAILED ("reconciliation
 * exhausted"); FAILED means "not confirmed paid", and a late success callback for it is flagged for
 * review. A payout is never marked FAILED by giving up (the money may have moved): after
 * `payoutGiveUpAfterSeconds` it stays UNKNOWN, is no longer queried, and is logged for review.
 */
import { DarajaError, type DarajaClient, type StkQueryResult } from "@mteja/daraja";
import { backoffAfter } from "@mteja/kernel";
import type { Deps } from "../context.js";
import { toTenant, type Tenant } from "../tenants/directory.js";
import { applyStoredStkCallback, parseStoredStkCallback } from "./callbacks.js";
import { isTerminalPayment, lockPaymentById } from "./payment-records.js";
import { lastErrorOf } from "./provider-errors.js";
import { settleFromQuery } from "./stk/stk-query.js";
import { withoutDarajaIds } from "./stk/unknown-prompts.js";

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
}

export const defaultReconcileOptions: ReconcileOptions = {
  batchSize: 20,
  paceMs: 200,
  leaseSeconds: 60,
  baseBackoffSeconds: 30,
  maxBackoffSeconds: 30 * 60,
  giveUpAfterSeconds: 24 * 3600,
  payoutGiveUpAfterSeconds: 72 * 3600,
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
  errors: number;
}

export interface Reconciler {
  runOnce(): Promise<ReconcileReport>;
}

interface ClaimedPayment {
  id: string;
  tenant_id: string;
  checkout_request_id: string;
  query_attempts: number;
  created_at: Date;
}

interface ClaimedPayout {
  id: string;
  tenant_id: string;
  originator_conversation_id: string;
  status: string;
  status_query_attempts: number;
  created_at: Date;
}

export function backoffSeconds(attempts: number, options: Pick<ReconcileOptions, "baseBackoffSeconds" | "maxBackoffSeconds">): number {
  return backoffAfter(attempts, { base: options.baseBackoffSeconds, max: options.maxBackoffSeconds }).delay;
}

export function createReconciler(getDeps: () => Deps, overrides: Partial<ReconcileOptions> = {}): Reconciler {
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
        errors: 0,
      };
      const tenants = new Map<string, Tenant | undefined>();
      const tenantOf = async (id: string) => {
        if (!tenants.has(id)) {
          const row = await deps.db.prisma.tenant.findUnique({ where: { id } });
          tenants.set(id, row ? toTenant(row) : undefined);
        }
        return tenants.get(id);
      };
      const clientFor = async (tenantId: string): Promise<DarajaClient | null> => {
        const tenant = await tenantOf(tenantId);
        return tenant ? deps.momo.darajaFor(tenant) : null;
      };

      await sweepHeldCallbacks(deps, report);
      await timeOutPromptsWithoutId(deps, report);
      await reconcilePayments(deps, options, report, clientFor, pace);
      await reconcilePayouts(deps, options, report, clientFor, pace);
      return report;
    },
  };
}

async function sweepHeldCallbacks(deps: Deps, report: ReconcileReport): Promise<void> {
  const now = deps.clock.now();
  const cutoff = new Date(now.getTime() - deps.momo.settings.promptInFlightSeconds * 1000);
  const held = await deps.db.prisma.momoCallback.findMany({
    where: { kind: "stkpush", outcome: "accepted", paymentId: null },
    orderBy: { receivedAt: "asc" },
    take: 200,
    select: { id: true, rawBody: true, receivedAt: true, correlationId: true },
  });
  for (const row of held) {
    const parsed = parseStoredStkCallback(row.rawBody);
    if (!parsed) continue;
    const result = await applyStoredStkCallback(deps, row.id, parsed);
    if (result === "held" && row.receivedAt < cutoff) {
      const flagReason = "unknown CheckoutRequestID (no payment claimed it while prompts were in flight)";
      const flagged = await deps.db.prisma.momoCallback.updateMany({
        where: { id: row.id, outcome: "accepted", paymentId: null },
        data: { outcome: "flagged", flagReason },
      });
      if (flagged.count === 1) {
        report.heldCallbacksFlagged += 1;
        deps.logger.warn({ callbackId: row.id, checkoutRequestId: row.correlationId, flagReason }, "momo callback flagged for review");
      }
    } else if (result === "flagged") {
      report.heldCallbacksFlagged += 1;
    } else if (result !== "held" && result !== "skipped") {
      report.heldCallbacksApplied += 1;
    }
  }
}

/**
 * Payments without a CheckoutRequestID that no callback claimed: TIMEOUT once the unknown-prompt
 * window has passed (for a push never answered, once it cannot be in flight any more either).
 */
async function timeOutPromptsWithoutId(deps: Deps, report: ReconcileReport): Promise<void> {
  const now = deps.clock.now();
  const { promptInFlightSeconds, unknownPromptWindowSeconds } = deps.momo.settings;
  const ago = (seconds: number) => new Date(now.getTime() - seconds * 1000);
  const due = await deps.db.prisma.payment.findMany({
    where: {
      ...withoutDarajaIds,
      OR: [
        { lastError: { not: null }, createdAt: { lt: ago(unknownPromptWindowSeconds) } },
        { lastError: null, createdAt: { lt: ago(Math.max(unknownPromptWindowSeconds, promptInFlightSeconds)) } },
      ],
    },
    orderBy: { createdAt: "asc" },
    take: 200,
    select: { id: true },
  });
  for (const { id } of due) {
    const payment = await deps.db.prisma.$transaction(async (tx) => {
      const locked = await lockPaymentById(tx, id);
      if (!locked || locked.status !== "PENDING" || locked.checkoutRequestId !== null) return undefined;
      return tx.payment.update({
        where: { id },
        data: {
          status: "TIMEOUT",
          resultDesc: "No callback matched this prompt, whose CheckoutRequestID was never known, within the unknown-prompt window.",
          nextQueryAt: null,
          settledAt: now,
          updatedAt: now,
        },
      });
    });
    if (!payment) continue;
    report.paymentsTimedOut += 1;
    deps.logger.warn({ paymentId: id, lastError: payment.lastError }, "payment without a CheckoutRequestID timed out");
    deps.momo.events.emit({ paymentId: id, tenantId: payment.tenantId, checkoutRequestId: null, status: payment.status });
  }
}

async function reconcilePayments(
  deps: Deps,
  options: ReconcileOptions,
  report: ReconcileReport,
  clientFor: (tenantId: string) => Promise<DarajaClient | null>,
  pace: () => Promise<void>,
): Promise<void> {
  const now = deps.clock.now();
  const leaseEnd = new Date(now.getTime() + options.leaseSeconds * 1000);
  // One statement: the due rows are locked (other instances skip them) and leased.
  const claimed = await deps.db.prisma.$queryRaw<ClaimedPayment[]>`
    WITH due AS (
      SELECT id FROM payments
       WHERE status = 'PENDING' AND checkout_request_id IS NOT NULL AND (next_query_at IS NULL OR next_query_at <= ${now})
       ORDER BY next_query_at NULLS FIRST
       LIMIT ${options.batchSize}::int
         FOR UPDATE SKIP LOCKED
    )
    UPDATE payments p
       SET next_query_at = ${leaseEnd}, query_attempts = p.query_attempts + 1
      FROM due
     WHERE p.id = due.id
    RETURNING p.id::text AS id, p.tenant_id, p.checkout_request_id, p.query_attempts, p.created_at`;

  for (const row of claimed) {
    const attempts = Number(row.query_attempts);
    const expired = deps.clock.now().getTime() - new Date(row.created_at).getTime() >= options.giveUpAfterSeconds * 1000;
    let lastAnswer: string;
    try {
      const client = await clientFor(row.tenant_id);
      if (!client) throw new Error("M-Pesa is not configured for this tenant");
      await pace();
      report.paymentsQueried += 1;
      const result: StkQueryResult = await client.stkQuery({ checkoutRequestId: row.checkout_request_id });
      const settled = await settleFromQuery(deps, row.id, result);
      if (!settled || isTerminalPayment(settled.status)) {
        if (settled) report.paymentsSettled += 1;
        continue;
      }
      lastAnswer = `ResultCode ${result.resultCode ?? "(none)"} ${result.resultDesc}`.trim();
    } catch (error) {
      report.errors += 1;
      lastAnswer = error instanceof DarajaError ? lastErrorOf(error) : String((error as Error)?.message ?? error);
      deps.logger.warn({ paymentId: row.id, error: lastAnswer }, "STK query for reconciliation failed");
    }
    if (expired) {
      if (await exhaustPayment(deps, row.id, lastAnswer)) report.paymentsExhausted += 1;
      continue;
    }
    const next = new Date(deps.clock.now().getTime() + backoffSeconds(attempts, options) * 1000);
    await deps.db.prisma.payment.updateMany({ where: { id: row.id, status: "PENDING" }, data: { nextQueryAt: next, lastError: lastAnswer.slice(0, 500) } });
  }
}

async function exhaustPayment(deps: Deps, paymentId: string, lastAnswer: string): Promise<boolean> {
  const now = deps.clock.now();
  const payment = await deps.db.prisma.$transaction(async (tx) => {
    const locked = await lockPaymentById(tx, paymentId);
    if (!locked || locked.status !== "PENDING") return undefined;
    return tx.payment.update({
      where: { id: paymentId },
      data: {
        status: "FAILED",
        lastError: `reconciliation exhausted: Daraja could not settle the payment within 24 hours (last answer: ${lastAnswer})`.slice(0, 500),
        nextQueryAt: null,
        settledAt: now,
        updatedAt: now,
      },
    });
  });
  if (!payment) return false;
  deps.logger.error({ paymentId, checkoutRequestId: payment.checkoutRequestId, lastAnswer }, "payment reconciliation exhausted: marked FAILED");
  deps.momo.events.emit({ paymentId, tenantId: payment.tenantId, checkoutRequestId: payment.checkoutRequestId, status: payment.status });
  return true;
}

async function reconcilePayouts(
  deps: Deps,
  options: ReconcileOptions,
  report: ReconcileReport,
  clientFor: (tenantId: string) => Promise<DarajaClient | null>,
  pace: () => Promise<void>,
): Promise<void> {
  const statusUrl = deps.momo.settings.b2cStatusUrl;
  if (!deps.momo.b2cEnabled || !statusUrl) return;
  const now = deps.clock.now();
  const leaseEnd = new Date(now.getTime() + options.leaseSeconds * 1000);
  const claimed = await deps.db.prisma.$queryRaw<ClaimedPayout[]>`
    WITH due AS (
      SELECT id FROM payouts
       WHERE status IN ('PENDING', 'UNKNOWN') AND next_status_query_at <= ${now}
       ORDER BY next_status_query_at
       LIMIT ${options.batchSize}::int
         FOR UPDATE SKIP LOCKED
    )
    UPDATE payouts p
       SET next_status_query_at = ${leaseEnd}, status_query_attempts = p.status_query_attempts + 1
      FROM due
     WHERE p.id = due.id
    RETURNING p.id::text AS id, p.tenant_id, p.originator_conversation_id, p.status, p.status_query_attempts, p.created_at`;

  for (const row of claimed) {
    const attempts = Number(row.status_query_attempts);
    const age = deps.clock.now().getTime() - new Date(row.created_at).getTime();
    if (age >= options.payoutGiveUpAfterSeconds * 1000) {
      const updated = await deps.db.prisma.payout.updateMany({
        where: { id: row.id, status: { in: ["PENDING", "UNKNOWN"] } },
        data: { status: "UNKNOWN", nextStatusQueryAt: null, lastError: "status queries exhausted: the outcome is unknown; check it on the M-Pesa portal", updatedAt: deps.clock.now() },
      });
      if (updated.count === 1) {
        report.payoutsGivenUp += 1;
        deps.logger.error({ payoutId: row.id, originatorConversationId: row.originator_conversation_id }, "payout status still unknown: needs manual review");
      }
      continue;
    }
    let lastError: string | null = null;
    try {
      const client = await clientFor(row.tenant_id);
      if (!client) throw new Error("M-Pesa is not configured for this tenant");
      await pace();
      report.payoutsQueried += 1;
      await client.transactionStatus({
        originatorConversationId: row.originator_conversation_id,
        resultUrl: statusUrl,
        queueTimeoutUrl: statusUrl,
        remarks: "Payout status",
      });
    } catch (error) {
      report.errors += 1;
      lastError = error instanceof DarajaError ? lastErrorOf(error) : String((error as Error)?.message ?? error);
      deps.logger.warn({ payoutId: row.id, error: lastError }, "Transaction Status query failed");
    }
    const next = new Date(deps.clock.now().getTime() + backoffSeconds(attempts, options) * 1000);
    await deps.db.prisma.payout.updateMany({
      where: { id: row.id, status: { in: ["PENDING", "UNKNOWN"] } },
      data: { nextStatusQueryAt: next, ...(lastError ? { lastError: lastError.slice(0, 500) } : {}) },
    });
  }
}
