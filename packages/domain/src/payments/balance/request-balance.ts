/**
 * POST /api/v1/admin/tenants/{id}/balance (docs/mpesa.md#account-balance): asks Daraja's Account
 * Balance API for the balance of the shop's B2C short code, by its initiator. The request is stored
 * `pending` before Daraja is called; its result (or time-out) arrives by callback (balance-callbacks.ts).
 * Daraja refusing it, or the request never leaving, makes it `failed` (502 / 503); any other failure
 * leaves it pending, for a result that may still come. Nothing moves money, so nothing is made once only:
 * a new request is always a new row.
 */
import { DarajaError } from "@mteja/daraja";
import { darajaRequests } from "@mteja/db";
import { callbackUrlFor } from "../shared/flow.js";
import type { Context } from "../shared/ports.js";
import { certainlyNotActedOn, lastErrorOf, providerUnavailable, toProviderError } from "../shared/provider-errors.js";
import { liveMoney } from "../shared/money-mode.js";
import { BALANCE_FLOW, type BalanceAsked } from "./balance-rows.js";
import { tenantNamed } from "./balance-tenant.js";
import { balanceMessages } from "./messages.js";
import type { BalanceStatus, RequestedBalanceView } from "./schemas.js";

/** Daraja takes 1-100 characters. */
export const BALANCE_REMARKS = "Account balance";

const PENDING = "pending" satisfies BalanceStatus;

export async function requestBalance(ctx: Context, tenantId: string): Promise<RequestedBalanceView> {
  const { deps } = ctx;
  const { tenant, db } = await tenantNamed(ctx, tenantId);
  const daraja = deps.daraja.darajaFor(tenant, liveMoney);
  // The shop's own token in the result addresses (docs/mpesa.md#callback-tokens).
  const resultUrl = callbackUrlFor(deps.daraja, "balance_result", tenant.id);
  const queueTimeoutUrl = callbackUrlFor(deps.daraja, "balance_timeout", tenant.id);
  if (!daraja || !resultUrl || !queueTimeoutUrl) throw providerUnavailable(balanceMessages.notConfigured);
  // Asked by the initiator of the shop's B2C group, about its B2C short code: without one, as for payouts.
  if (!deps.daraja.hasPayoutAccount(tenant) || !daraja.b2cShortcode) {
    throw providerUnavailable(balanceMessages.initiatorMissing);
  }

  const requestedAt = deps.clock.now();
  const asked: BalanceAsked = { shortCode: daraja.b2cShortcode };
  const request = await darajaRequests.create(db, {
    tenantId: tenant.id,
    flow: BALANCE_FLOW,
    request: { ...asked },
    status: PENDING,
    requestedAt,
    updatedAt: requestedAt,
  });
  try {
    const ack = await daraja.accountBalance({ resultUrl, queueTimeoutUrl, remarks: BALANCE_REMARKS });
    const ids = { originatorConversationId: ack.originatorConversationId, conversationId: ack.conversationId };
    await darajaRequests.storeDarajaIds(db, request.id, { ...ids, updatedAt: deps.clock.now() });
  } catch (error) {
    if (!(error instanceof DarajaError)) throw error;
    if (certainlyNotActedOn(error)) {
      const failed = { status: "failed", resultDesc: lastErrorOf(error), updatedAt: deps.clock.now() };
      await darajaRequests.updateIfStill(db, { id: request.id, status: PENDING }, failed);
      throw toProviderError(error);
    }
    // It may have reached Daraja: its result names ids this request never stored, and is matched to it.
    const fields = { tenantId: tenant.id, balanceId: request.id, lastError: lastErrorOf(error) };
    deps.logger.warn(fields, "Account Balance request outcome unknown");
  }
  // Always 202: the balance arrives later, by callback.
  ctx.request.markAccepted();
  return { id: request.id, status: PENDING, requested_at: requestedAt.toISOString() };
}
