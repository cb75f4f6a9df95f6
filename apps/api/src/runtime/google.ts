/**
 * Sign in with Google's side of the composition root (docs/sign-in.md#sign-in-with-google): the
 * provider port on OIDC_GOOGLE_ISSUER (Google itself unless set). On the dev start without
 * OIDC_GOOGLE_ISSUER, the Google simulator runs in-process (dev-simulators.ts) and the default shop
 * gets its client, sending the browser back to the demo, unless it has a Google client of its own.
 */
import { tenants, type Database } from "@mteja/db";
import type { DataCipher, GoogleIdentityProvider, Logger } from "@mteja/domain";
import type { Settings } from "../settings.js";
import { startDevGoogle, type DevGoogle } from "./dev-simulators.js";
import { createGoogleProvider } from "./google-provider.js";
import { googleIssuer } from "./google-settings.js";

export interface GoogleRuntime {
  provider: GoogleIdentityProvider;
  close(): Promise<void>;
}

const callbackPath = "/api/v1/auth/oidc/google/callback";

/** Whether this start runs the Google simulator in-process (on GOOGLE_SIM_PORT). */
export function googleSimulatorWanted(settings: Settings): boolean {
  return settings.MTEJA_DEV_START && !settings.OIDC_GOOGLE_ISSUER && settings.NODE_ENV !== "production";
}

export async function createGoogleRuntime(
  settings: Settings,
  db: Database,
  cipher: DataCipher,
  logger: Logger,
  now: () => Date,
): Promise<GoogleRuntime> {
  const callbacks = [`${serviceUrl(settings)}${callbackPath}`];
  const dev = googleSimulatorWanted(settings) ? await startDevGoogle(settings, logger, callbacks) : undefined;
  if (dev) await giveDemoShopTheSimulator(settings, db, cipher, dev);
  return {
    provider: createGoogleProvider({ issuer: dev?.issuer ?? settings.OIDC_GOOGLE_ISSUER ?? googleIssuer, now }),
    close: async () => {
      await dev?.close();
    },
  };
}

function serviceUrl(settings: Settings): string {
  return (settings.PUBLIC_URL ?? `http://localhost:${settings.PORT}`).replace(/\/+$/, "");
}

/** The default shop's Google client is the simulator's, its pages the demo's (APP_URL on the dev start). */
async function giveDemoShopTheSimulator(settings: Settings, db: Database, cipher: DataCipher, dev: DevGoogle): Promise<void> {
  const demo = settings.APP_URL.replace(/\/+$/, "");
  await db.transaction(db.unscoped("start-up"), async (tx) => {
    const row = await tenants.lockTenant(tx, settings.DEFAULT_TENANT_ID);
    if (!row) return;
    const stored = (typeof row.settings === "object" && row.settings !== null ? row.settings : {}) as Record<string, unknown>;
    const oidc = (stored.oidc ?? {}) as Record<string, unknown>;
    const google = oidc.google as { clientId?: string } | undefined;
    if (google && google.clientId !== dev.clientId) return;
    const own = { clientId: dev.clientId, clientSecret: cipher.encrypt(dev.clientSecret), redirectUris: [`${demo}/`, demo] };
    await tenants.updateTenant(tx, settings.DEFAULT_TENANT_ID, { settings: { ...stored, oidc: { ...oidc, google: own } } });
  });
}
