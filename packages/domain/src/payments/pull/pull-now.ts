/**
 * POST /api/v1/c2b-payments/pull (docs/mpesa.md#recovery): the shop's server asks for a pull now, of a
 * window within the last 48 hours (Daraja keeps no more; default: all 48). Every page is read and each
 * receipt Mteja did not hold is applied as its confirmation would have been (pulled-receipts.ts).
 * Daraja's "no records" (which it also answers for a short code it has not provisioned for Pull) is
 * `{ pulled: 0, recovered: 0 }`, and logged.
 */
import { DarajaError } from "@mteja/daraja";
import type { Text } from "@mteja/i18n";
import { DomainError } from "../../shared/errors.js";
import type { TenantCtx } from "../shared/ports.js";
import { providerUnavailable, toProviderError } from "../shared/provider-errors.js";
import { liveMoney } from "../shared/money-mode.js";
import { c2bShortCodeOf } from "../shared/short-codes.js";
import { applyPulled, type PullWindow } from "./pulled-receipts.js";
import type { PullNowInput, PullNowView } from "./schemas.js";

/** How far back Daraja's Pull Transactions reaches. */
export const PULL_REACH_MS = 48 * 60 * 60 * 1000;
/** A window's end may be this far ahead of the service's clock (the shop's clock may run ahead). */
const CLOCK_SKEW_MS = 5 * 60 * 1000;

function invalid(path: "from" | "to", message: Text): DomainError {
  return new DomainError("VALIDATION_ERROR", undefined, { details: [{ path, message }] });
}

/** The window asked for, checked against the service's clock; ends ahead of it are brought back to now. */
export function pullWindowOf(input: PullNowInput, now: Date): PullWindow {
  const to = input.to ?? now;
  const from = input.from ?? new Date(now.getTime() - PULL_REACH_MS);
  if (to.getTime() > now.getTime() + CLOCK_SKEW_MS) throw invalid("to", "detail.pull_to_in_future");
  // A minute's grace: "48 hours ago" as the shop computed it is a little older once it arrives.
  if (from.getTime() < now.getTime() - PULL_REACH_MS - 60_000) throw invalid("from", "detail.pull_window_48h");
  if (from >= to) throw invalid("to", "detail.pull_to_before_from");
  const reach = new Date(now.getTime() - PULL_REACH_MS);
  return { from: from < reach ? reach : from, to: to > now ? now : to };
}

export async function pullNow(ctx: TenantCtx, input: PullNowInput): Promise<PullNowView> {
  const { deps, tenant } = ctx;
  const window = pullWindowOf(input, deps.clock.now());
  const shortCode = c2bShortCodeOf(deps, tenant);
  if (!shortCode) {
    throw new DomainError("VALIDATION_ERROR", "pull.no_own_shortcode", {
      details: [{ path: "settings.momo.shortcode", message: "detail.c2b_needs_own_shortcode" }],
    });
  }
  const daraja = deps.daraja.darajaFor(tenant, liveMoney);
  if (!daraja) throw providerUnavailable("pull.not_configured");
  let result;
  try {
    result = await daraja.pullTransactions({ shortCode, from: window.from, to: window.to });
  } catch (error) {
    if (error instanceof DarajaError) throw toProviderError(error);
    throw error;
  }
  const fields = { tenantId: tenant.id, shortCode };
  if (result.noRecords) {
    // Also what Daraja answers a short code not provisioned for Pull: said, never hidden.
    deps.logger.info({ ...fields, message: result.responseMessage }, "Pull Transactions: Daraja answered no records");
    return { pulled: 0, recovered: 0 };
  }
  const { logger } = deps;
  if (result.unreadable.length > 0) {
    logger.warn({ ...fields, unreadable: result.unreadable.length }, "pulled rows that do not read: not credited");
  }
  if (result.truncated) {
    logger.warn({ ...fields, pages: result.pages }, "Pull Transactions: more pages than read; pull a shorter window");
  }
  const count = await applyPulled(deps, tenant, shortCode, result.transactions, window);
  if (count.recovered > 0) logger.info({ ...fields, recovered: count.recovered }, "Pull recovered payments");
  return { pulled: count.pulled, recovered: count.recovered };
}
