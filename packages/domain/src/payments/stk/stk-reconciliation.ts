/**
 * The STK sweeps of a reconciler run (../reconciliation.ts): held callbacks, prompts without a
 * CheckoutRequestID, and STK queries of due PENDING payments.
 *
 * Giving up: Daraja ends every prompt within minutes (1037 / 1019 are terminal), so a payment that
 * Daraja still cannot settle 24 hours after it was created is marked FAILED ("reconciliation
 * exhausted"); FAILED means "not confirmed paid", and a late success callback for it is flagged for
 * review.
 */
import type { StkQueryResult } from "@mteja/daraja";
import { callbacks, payments, type TenantDb } from "@mteja/db";
import type { PaymentPorts } from "../shared/ports.js";
import { leaseEnd, leasedRows, nextAttemptAt, queryErrorNote, type SweepRun } from "../shared/leased-sweep.js";
import { recordIntentPaidByHeld, recordPaymentSettled } from "../../intents/intent-events.js";
import { publishPaymentStatus } from "../shared/status-publisher.js";
import { isTerminalPayment } from "../shared/payment-views.js";
import { applyStoredStkCallback, parseStoredStkCallback } from "./stk-callbacks.js";
import { settleFromQuery } from "./stk-query.js";
import { settleIntentOf } from "../../intents/intent-settlement.js";

/** Applies STK callbacks kept for a CheckoutRequestID that is now stored; flags those no payment claimed within the in-flight window. */
export async function sweepHeldCallbacks({ deps, report }: SweepRun): Promise<void> {
  const now = deps.clock.now();
  const cutoff = new Date(now.getTime() - deps.daraja.settings.promptInFlightSeconds * 1000);
  const held = await callbacks.listHeld(deps.db.unscoped("worker"), { kind: "stkpush", limit: 200 });
  for (const row of held) {
    const parsed = parseStoredStkCallback(row.rawBody);
    if (!parsed) continue;
    const result = await applyStoredStkCallback(deps, row, parsed);
    if (result === "held" && row.receivedAt < cutoff) {
      const flagReason = "unknown CheckoutRequestID (no payment claimed it while prompts were in flight)";
      if (await callbacks.flagIfHeld(deps.db.unscoped("worker"), row.id, flagReason)) {
        report.heldCallbacksFlagged += 1;
        deps.logger.warn({ callbackId: row.id, checkoutRequestId: row.correlationId, flagReason }, "momo callback flagged for review");
      }
    } else if (result === "flagged") {
      report.heldCallbacksFlagged += 1;
    } else if (result !== "held" && result !== "skipped" && result !== "rejected") {
      report.heldCallbacksApplied += 1;
    }
  }
}

/**
 * Payments without a CheckoutRequestID that no callback claimed: TIMEOUT once the unknown-prompt
 * window has passed (for a push never answered, once it cannot be in flight any more either).
 */
export async function timeOutPromptsWithoutId({ deps, report }: SweepRun): Promise<void> {
  const now = deps.clock.now();
  const { promptInFlightSeconds, unknownPromptWindowSeconds } = deps.daraja.settings;
  const ago = (seconds: number) => new Date(now.getTime() - seconds * 1000);
  const due = await payments.listWithoutDarajaIds(deps.db.unscoped("worker"), {
    status: "PENDING",
    unknownBefore: ago(unknownPromptWindowSeconds),
    unansweredBefore: ago(Math.max(unknownPromptWindowSeconds, promptInFlightSeconds)),
    limit: 200,
  });
  for (const { id, tenantId } of due) {
    const payment = await deps.db.transaction(deps.db.forTenant(tenantId), async (tx) => {
      const locked = await payments.lockOfTenant(tx, { id, tenantId });
      if (!locked || locked.status !== "PENDING" || locked.checkoutRequestId !== null) return undefined;
      const intent = await settleIntentOf(tx, locked, "TIMEOUT", now); // payment intents: back to requires_payment
      const timedOut = await payments.update(tx, id, {
        status: "TIMEOUT",
        resultDesc:
          "No callback matched this prompt, whose CheckoutRequestID was never known, within the unknown-prompt window.",
        nextQueryAt: null,
        settledAt: now,
        updatedAt: now,
        ...intent.columns,
      });
      await recordPaymentSettled(tx, timedOut, now);
      await recordIntentPaidByHeld(tx, intent, now);
      return timedOut;
    });
    if (!payment) continue;
    report.paymentsTimedOut += 1;
    deps.logger.warn({ paymentId: id, lastError: payment.lastError }, "payment without a CheckoutRequestID timed out");
    publishPaymentStatus(deps, payment);
  }
}

/** STK-queries due PENDING payments and settles them from the answer (the apply-once path). */
export async function queryDuePayments(run: SweepRun): Promise<void> {
  const { deps, options, report } = run;
  const now = deps.clock.now();
  // One statement: the due rows are locked (other instances skip them) and leased.
  const due = { now, leaseUntil: leaseEnd(run, now), limit: options.batchSize };
  const claimed = await payments.claimDueQueries(deps.db.unscoped("worker"), due);

  for (const row of leasedRows(run, "payments", claimed, due.leaseUntil)) {
    const key = { id: row.id, tenantId: row.tenant_id };
    const db = deps.db.forTenant(row.tenant_id);
    const attempts = Number(row.query_attempts);
    const expired = deps.clock.now().getTime() - new Date(row.created_at).getTime() >= options.giveUpAfterSeconds * 1000;
    let lastAnswer: string;
    try {
      const client = await run.clientFor(row.tenant_id, row);
      if (!client) throw new Error("M-Pesa is not configured for this tenant");
      await run.pace();
      report.paymentsQueried += 1;
      const result: StkQueryResult = await client.stkQuery({ checkoutRequestId: row.checkout_request_id });
      const settled = await settleFromQuery(deps, db, key, result);
      if (!settled || isTerminalPayment(settled.status)) {
        if (settled) report.paymentsSettled += 1;
        continue;
      }
      lastAnswer = `ResultCode ${result.resultCode ?? "(none)"} ${result.resultDesc}`.trim();
    } catch (error) {
      report.errors += 1;
      lastAnswer = queryErrorNote(error);
      deps.logger.warn({ paymentId: row.id, error: lastAnswer }, "STK query for reconciliation failed");
    }
    if (expired) {
      if (await exhaustPayment(deps, db, key, lastAnswer)) report.paymentsExhausted += 1;
      continue;
    }
    const next = { nextQueryAt: nextAttemptAt(run, attempts), lastError: lastAnswer.slice(0, 500) };
    await payments.updateIfStill(db, { id: row.id, status: "PENDING" }, next);
  }
}

async function exhaustPayment(
  deps: PaymentPorts,
  db: TenantDb,
  key: payments.PaymentKey,
  lastAnswer: string,
): Promise<boolean> {
  const paymentId = key.id;
  const now = deps.clock.now();
  const payment = await deps.db.transaction(db, async (tx) => {
    const locked = await payments.lockOfTenant(tx, key);
    if (!locked || locked.status !== "PENDING") return undefined;
    const intent = await settleIntentOf(tx, locked, "FAILED", now); // payment intents: back to requires_payment
    const why = "reconciliation exhausted: Daraja could not settle the payment within 24 hours";
    const exhausted = await payments.update(tx, paymentId, {
      status: "FAILED",
      lastError: `${why} (last answer: ${lastAnswer})`.slice(0, 500),
      nextQueryAt: null,
      settledAt: now,
      updatedAt: now,
      ...intent.columns,
    });
    await recordPaymentSettled(tx, exhausted, now);
    await recordIntentPaidByHeld(tx, intent, now);
    return exhausted;
  });
  if (!payment) return false;
  deps.logger.error({ paymentId, checkoutRequestId: payment.checkoutRequestId, lastAnswer }, "payment reconciliation exhausted: marked FAILED");
  publishPaymentStatus(deps, payment);
  return true;
}

