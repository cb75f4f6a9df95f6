/**
 * POST /api/v1/admin/tenants/{id}/pull/register (docs/mpesa.md#recovery): registers the shop's short
 * code with Daraja's Pull Transactions API (once per short code; Daraja's "already registered" is
 * success too), then records it for the sweep, which pulls its last 48 hours at its next run and its
 * latest window every MOMO_PULL_INTERVAL_SECONDS after that. Safe to repeat: nothing moves money.
 */
import { DarajaError, PULL_REGISTERED } from "@mteja/daraja";
import { pullRegistrations } from "@mteja/db";
import { DomainError } from "../../shared/errors.js";
import { TENANT_PARAMETER, TOKEN_PARAMETER } from "../shared/callback-tokens.js";
import { callbackUrlFor } from "../shared/flow.js";
import type { Context } from "../shared/ports.js";
import { providerUnavailable, toProviderError } from "../shared/provider-errors.js";
import { liveMoney } from "../shared/money-mode.js";
import { c2bShortCodeOf } from "../shared/short-codes.js";
import type { RegisterPullInput } from "./schemas.js";

const withoutToken = (url: string) => {
  const parsed = new URL(url);
  parsed.searchParams.delete(TOKEN_PARAMETER);
  parsed.searchParams.delete(TENANT_PARAMETER);
  return parsed.toString();
};

export async function registerPull(ctx: Context, input: RegisterPullInput) {
  const { deps } = ctx;
  const tenant = await deps.tenants.find(input.id);
  if (!tenant) throw new DomainError("NOT_FOUND", "not_found.tenant");
  const shortCode = c2bShortCodeOf(deps, tenant);
  if (!shortCode) {
    throw new DomainError("VALIDATION_ERROR", "pull.no_own_shortcode", {
      details: [{ path: "settings.momo.shortcode", message: "detail.c2b_needs_own_shortcode" }],
    });
  }
  const callbackUrl = callbackUrlFor(deps.daraja, "pull_callback", tenant.id);
  const daraja = deps.daraja.darajaFor(tenant, liveMoney);
  if (!daraja || !callbackUrl) throw providerUnavailable("pull.not_configured");
  let answer;
  try {
    answer = await daraja.pullRegister({ shortCode, nominatedNumber: input.nominated_number, callbackUrl });
  } catch (error) {
    if (error instanceof DarajaError) throw toProviderError(error);
    throw error;
  }
  const now = deps.clock.now();
  const registration = await pullRegistrations.record(deps.db.forTenant(tenant.id), {
    tenantId: tenant.id,
    shortCode,
    nominatedNumber: input.nominated_number,
    at: now,
    nextPullAt: now,
  });
  const fields = { tenantId: tenant.id, shortCode, status: answer.status };
  deps.logger.info(fields, "short code registered for Pull Transactions");
  const sweeping = deps.daraja.settings.pullIntervalSeconds > 0;
  return {
    tenant_id: tenant.id,
    short_code: shortCode,
    nominated_number: input.nominated_number,
    status: answer.status === PULL_REGISTERED ? ("registered" as const) : ("already_registered" as const),
    response_description: answer.description,
    callback_url: withoutToken(callbackUrl),
    registered_at: registration.registeredAt.toISOString(),
    next_pull_at: sweeping ? registration.nextPullAt.toISOString() : null,
  };
}
