/** The shop's Google client from its settings (`settings.oidc.google`); a shop without one has no Google sign-in. */
import { DomainError } from "../../shared/errors.js";
import type { Tenant } from "../../shared/tenant.js";
import type { AuthPorts } from "../ports.js";
import type { GoogleClient } from "./identity-provider.js";

export const googleNotSetUp = () => new DomainError("NOT_FOUND", "google.not_set_up");

/** The client id alone: what an ID token's audience must be. */
export function googleClientIdOf(tenant: Tenant): string {
  const clientId = tenant.settings.oidc?.google?.clientId;
  if (!clientId) throw googleNotSetUp();
  return clientId;
}

/** The whole client, its secret decrypted, for the redirect flow. */
export function googleClientOf(deps: Pick<AuthPorts, "cipher">, tenant: Tenant): GoogleClient & { redirectUris: string[] } {
  const google = tenant.settings.oidc?.google;
  if (!google?.clientId || !google.clientSecret) throw googleNotSetUp();
  return { clientId: google.clientId, clientSecret: deps.cipher.decrypt(google.clientSecret), redirectUris: google.redirectUris ?? [] };
}
