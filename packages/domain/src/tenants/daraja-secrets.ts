/**
 * A tenant's Daraja secrets at rest: encrypted with the data cipher (as TOTP secrets are), shown as
 * "set", and decrypted only to build a Daraja client.
 */
import { tenants, type Database } from "@mteja/db";
import type { DataCipher } from "../shared/data-cipher.js";
import { GOOGLE_SECRET_FIELD, MASKED_SECRET, MOMO_SECRET_FIELDS, type TenantSettings } from "../shared/tenant-settings.js";

/** The data cipher's format (v1.iv.tag.ciphertext); no Daraja secret has this shape. */
const SEALED = /^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]*$/;

function looksSealed(value: string): boolean {
  return SEALED.test(value);
}

/**
 * The secret in clear. A value not in the cipher's format is a first-release value, stored in clear
 * (until the start-up sealing below reaches it). A sealed value that does not decrypt (the data key
 * changed) throws: it is never sent to Daraja as if it were the secret.
 */
export function revealSecret(cipher: DataCipher, stored: string): string {
  return looksSealed(stored) ? cipher.decrypt(stored) : stored;
}

/** Settings as the admin API shows them: each stored secret as "set" (Google's client secret too). */
export function maskSecrets(settings: TenantSettings): TenantSettings {
  const shown = maskGoogleSecret(settings);
  const momo = shown.momo;
  if (!momo) return shown;
  const masked = { ...momo };
  for (const field of MOMO_SECRET_FIELDS) if (masked[field] !== undefined) masked[field] = MASKED_SECRET;
  return { ...shown, momo: masked };
}

function maskGoogleSecret(settings: TenantSettings): TenantSettings {
  const google = settings.oidc?.google;
  if (google?.[GOOGLE_SECRET_FIELD] === undefined) return settings;
  return { ...settings, oidc: { ...settings.oidc, google: { ...google, [GOOGLE_SECRET_FIELD]: MASKED_SECRET } } };
}

/** Settings whose secrets are all encrypted: any clear one (first release) is encrypted now. */
function sealed(cipher: DataCipher, settings: Record<string, unknown>): Record<string, unknown> | undefined {
  const momo = settings.momo;
  if (typeof momo !== "object" || momo === null) return undefined;
  const next: Record<string, unknown> = { ...momo };
  let changed = false;
  for (const field of MOMO_SECRET_FIELDS) {
    const value = next[field];
    if (typeof value === "string" && !looksSealed(value)) {
      next[field] = cipher.encrypt(value);
      changed = true;
    }
  }
  return changed ? { ...settings, momo: next } : undefined;
}

/**
 * Encrypts the Daraja secrets the first release stored in clear. Run at start, before serving; each
 * tenant is re-read under a row lock, so instances starting at once or an admin update in between
 * never see a secret encrypted twice or an update lost.
 */
export async function sealStoredMomoSecrets(db: Database, cipher: DataCipher): Promise<string[]> {
  const rows = await tenants.settingsOfEvery(db.unscoped("start-up"));
  const changed: string[] = [];
  for (const candidate of rows) {
    if (!isRecord(candidate.settings) || !sealed(cipher, candidate.settings)) continue;
    await db.transaction(db.unscoped("start-up"), async (tx) => {
      const row = await tenants.lockTenant(tx, candidate.id);
      const next = row && isRecord(row.settings) ? sealed(cipher, row.settings) : undefined;
      if (!next) return;
      await tenants.updateTenant(tx, candidate.id, { settings: next });
      changed.push(candidate.id);
    });
  }
  return changed;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
