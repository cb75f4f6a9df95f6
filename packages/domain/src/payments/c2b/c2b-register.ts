/**
 * POST /api/v1/admin/tenants/:id/c2b/register: tells Daraja where a tenant's paybill/till payments are
 * validated and confirmed (C2B v2 register URL, docs/mpesa.md#c2b). The same two addresses serve every
 * tenant, each with the tenant's own token (docs/mpesa.md#callback-tokens): a notification names its
 * short code, which names the tenant. Once Daraja accepts them, the shared secret (the old form) no
 * longer speaks for the tenant's C2B.
 */
import { DarajaError } from "@mteja/daraja";
import type { Context } from "../shared/ports.js";
import { DomainError } from "../../shared/errors.js";
import { providerUnavailable, toProviderError } from "../shared/provider-errors.js";
import { liveMoney } from "../shared/money-mode.js";
import { TENANT_PARAMETER, TOKEN_PARAMETER } from "../shared/callback-tokens.js";
import { callbackUrlFor } from "../shared/flow.js";
import { c2bShortCodeOf } from "../shared/short-codes.js";
import { recordC2bRegisteredWithTenantToken } from "./c2b-tenant.js";
import type { RegisterC2bInput } from "./schemas.js";

const withoutToken = (url: string) => {
  const parsed = new URL(url);
  parsed.searchParams.delete(TOKEN_PARAMETER);
  parsed.searchParams.delete(TENANT_PARAMETER);
  return parsed.toString();
};

export async function registerC2b(ctx: Context, input: RegisterC2bInput) {
  const { deps } = ctx;
  const tenant = await deps.tenants.find(input.id);
  if (!tenant) throw new DomainError("NOT_FOUND", "not_found.tenant");
  const shortCode = c2bShortCodeOf(deps, tenant);
  if (!shortCode) {
    throw new DomainError("VALIDATION_ERROR", "c2b.no_own_shortcode", {
      details: [{ path: "settings.momo.shortcode", message: "detail.c2b_needs_own_shortcode" }],
    });
  }
  const c2bValidationUrl = callbackUrlFor(deps.daraja, "c2b_validation", tenant.id);
  const c2bConfirmationUrl = callbackUrlFor(deps.daraja, "c2b_confirmation", tenant.id);
  const daraja = deps.daraja.darajaFor(tenant, liveMoney);
  if (!daraja || !c2bValidationUrl || !c2bConfirmationUrl) throw providerUnavailable("payments.not_configured");
  try {
    const answer = await daraja.registerC2bUrls({ shortCode, responseType: input.response_type, validationUrl: c2bValidationUrl, confirmationUrl: c2bConfirmationUrl });
    await recordC2bRegisteredWithTenantToken(deps, tenant.id);
    deps.logger.info({ tenantId: tenant.id, shortCode, version: answer.version }, "C2B URLs registered with Daraja");
    return {
      tenant_id: tenant.id,
      short_code: shortCode,
      response_type: input.response_type,
      validation_url: withoutToken(c2bValidationUrl),
      confirmation_url: withoutToken(c2bConfirmationUrl),
      daraja_version: answer.version,
      originator_conversation_id: answer.originatorConversationId,
    };
  } catch (error) {
    if (error instanceof DarajaError) throw toProviderError(error);
    throw error;
  }
}
