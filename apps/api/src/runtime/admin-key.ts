/**
 * The admin API key in force. The dev start (MTEJA_DEV_START outside production) without
 * ADMIN_API_KEY gets a known key, so a new user can promote an admin and try payouts at once. Being
 * known to everyone, that key answers only local requests (direct loopback connections naming a local
 * Host, http/loopback.ts): nobody on the network, nor a web page rebinding its name to 127.0.0.1, can
 * use it to act as admin. A configured ADMIN_API_KEY works from anywhere, as in production.
 */
import type { Settings } from "../settings.js";

export const devAdminApiKey = "mteja-dev-admin-key";

export interface AdminApiKey {
  key: string | undefined;
  loopbackOnly: boolean;
}

export function adminApiKeyOf(settings: Pick<Settings, "ADMIN_API_KEY" | "MTEJA_DEV_START" | "NODE_ENV">): AdminApiKey {
  if (settings.ADMIN_API_KEY) return { key: settings.ADMIN_API_KEY, loopbackOnly: false };
  if (settings.MTEJA_DEV_START && settings.NODE_ENV !== "production") return { key: devAdminApiKey, loopbackOnly: true };
  return { key: undefined, loopbackOnly: false };
}
