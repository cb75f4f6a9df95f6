/** Rules shared by stkPush and b2cPayout: the Idempotency-Key header and the tenant's amount bounds. */
import type { Context } from "../context.js";
import type { Clock } from "../core/ports.js";
import { DomainError } from "../errors.js";
import type { Tenant } from "../tenants/directory.js";

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** The Idempotency-Key header: 1-255 visible ASCII characters; absent or blank means none. */
export function idempotencyKeyOf(ctx: Context): string | undefined {
  const key = ctx.request.idempotencyKey?.trim();
  if (!key) return undefined;
  if (!KEY_PATTERN.test(key)) {
    throw new DomainError("VALIDATION_ERROR", "The Idempotency-Key header is invalid.", {
      details: [{ path: "Idempotency-Key", message: "must be 1-255 visible ASCII characters (a UUID is a good choice)" }],
    });
  }
  return key;
}

export function keyReusedError(): DomainError {
  return new DomainError("VALIDATION_ERROR", "This Idempotency-Key was already used for a different request.", {
    details: [{ path: "Idempotency-Key", message: "already used with a different body; use a new key for a new request" }],
  });
}

/** Per-tenant bounds (tenant settings momo.minAmount / maxAmount) may narrow Daraja's. */
export function checkTenantAmount(tenant: Tenant, amount: number): void {
  const { minAmount, maxAmount } = tenant.settings.momo ?? {};
  if (minAmount !== undefined && amount < minAmount) throw amountError(`amount must be at least ${minAmount} for this shop`);
  if (maxAmount !== undefined && amount > maxAmount) throw amountError(`amount must be at most ${maxAmount} for this shop`);
}

function amountError(message: string): DomainError {
  return new DomainError("VALIDATION_ERROR", "The request is invalid.", { details: [{ path: "amount", message }] });
}

/** How often a retry re-reads the first request's row while it waits. */
export const inFlightPollMs = 100;

export interface InFlightWait<Row extends { createdAt: Date }> {
  /** Still waiting for Daraja's answer to the first request. */
  inFlight(row: Row): boolean;
  reload(): Promise<Row>;
  /** now() places the first request in its window; the wait itself is real time (tests move now() by hand). */
  clock: Clock;
  /** How long the first request can be waiting for Daraja at worst (momo settings, derived from the client's timing). */
  inFlightSeconds: number;
}

/**
 * A retry with a used Idempotency-Key (STK push and B2C alike) waits for the first request's answer,
 * but never past the first request's in-flight window: a row still unanswered then is not in flight
 * any more (its outcome is unknown). Returns the last row read.
 */
export async function waitWhileInFlight<Row extends { createdAt: Date }>(row: Row, wait: InFlightWait<Row>): Promise<Row> {
  let current = row;
  const remainingMs = current.createdAt.getTime() + wait.inFlightSeconds * 1000 - wait.clock.now().getTime();
  const deadline = wait.clock.monotonicMs() + Math.max(remainingMs, 0);
  while (wait.inFlight(current) && wait.clock.monotonicMs() < deadline) {
    await wait.clock.sleep(inFlightPollMs);
    current = await wait.reload();
  }
  return current;
}
