/**
 * Who the passkeys of a shop belong to (docs/sign-in.md#passkeys): the tenant's
 * `settings.webauthn = { rpId, rpName, origins }`, each defaulting to the shop's app URL (its
 * `settings.appUrl`, else APP_URL): its host name, the shop's display name, its origin. A browser
 * refuses an IP address as an RP ID, so a shop served from an address sets `rpId` (and `origins`).
 */
import { normaliseOrigin, tenantDisplayName, type Tenant } from "../../shared/tenant.js";

export interface RelyingParty {
  rpId: string;
  rpName: string;
  /** The exact origins an assertion's client data may name. */
  origins: string[];
}

export function relyingPartyOf(tenant: Tenant, appUrl: string): RelyingParty {
  const configured = tenant.settings.webauthn ?? {};
  const app = new URL(tenant.settings.appUrl ?? appUrl);
  return {
    rpId: configured.rpId ?? app.hostname,
    rpName: configured.rpName ?? tenantDisplayName(tenant),
    origins: configured.origins?.map(normaliseOrigin) ?? [app.origin],
  };
}
