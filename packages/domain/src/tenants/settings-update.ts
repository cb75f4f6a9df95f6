/**
 * The settings a tenant gets from an admin create or update: the stored settings with the request's
 * JSON Merge Patch applied, secrets encrypted, and the credential rules checked on the result.
 */
import { DomainError, type ErrorDetail } from "../shared/errors.js";
import type { DataCipher } from "../shared/data-cipher.js";
import { applyMergePatch } from "../shared/merge-patch.js";
import {
  GOOGLE_SECRET_FIELD,
  MASKED_SECRET,
  MOMO_CREDENTIAL_GROUPS,
  MOMO_SECRET_FIELDS,
  missingCredentialFields,
  storedTenantSettingsSchema,
  type TenantSettings,
  type TenantSettingsPatch,
} from "../shared/tenant-settings.js";

export interface SettingsUpdateContext {
  cipher: DataCipher;
  /** The default tenant may pay out from the platform's B2C account; other tenants only from their own. */
  isDefaultTenant: boolean;
}

export function nextTenantSettings(stored: TenantSettings, patch: TenantSettingsPatch, context: SettingsUpdateContext): TenantSettings {
  const details: ErrorDetail[] = [];
  const sealedPatch = sealGoogleSecret(stored, sealPatchSecrets(stored, patch, context.cipher, details), context.cipher, details);
  const merged = storedTenantSettingsSchema.parse(applyMergePatch(stored, sealedPatch));

  for (const field of missingCredentialFields(merged.momo)) {
    details.push({ path: `settings.momo.${field}`, message: "detail.credentials_all_or_nothing" });
  }
  const hasOwnStk = MOMO_CREDENTIAL_GROUPS.stk.every((field) => merged.momo?.[field] !== undefined);
  if (hasOwnStk && merged.momo?.transactionType === "CustomerBuyGoodsOnline" && merged.momo.tillNumber === undefined) {
    details.push({ path: "settings.momo.tillNumber", message: "detail.till_required" });
  }
  const hasOwnB2c = MOMO_CREDENTIAL_GROUPS.b2c.every((field) => merged.momo?.[field] !== undefined);
  if (merged.momo?.b2c?.enabled === true && !context.isDefaultTenant && !hasOwnB2c) {
    details.push({ path: "settings.momo.b2c.enabled", message: { key: "detail.payouts_need_own_account", params: { fields: MOMO_CREDENTIAL_GROUPS.b2c.join(", ") } } });
  }
  if (details.length > 0) throw new DomainError("VALIDATION_ERROR", undefined, { details });
  return merged;
}

/** New secrets encrypted; "set" (the masked value written back) dropped, so the stored one stays. */
function sealPatchSecrets(stored: TenantSettings, patch: TenantSettingsPatch, cipher: DataCipher, details: ErrorDetail[]): TenantSettingsPatch {
  if (!patch.momo) return patch;
  const momo = { ...patch.momo };
  for (const field of MOMO_SECRET_FIELDS) {
    const value = momo[field];
    if (typeof value !== "string") continue;
    if (value !== MASKED_SECRET) momo[field] = cipher.encrypt(value);
    else if (stored.momo?.[field] !== undefined) delete momo[field];
    else details.push({ path: `settings.momo.${field}`, message: { key: "detail.secret_nothing_to_keep", params: { field } } });
  }
  return { ...patch, momo };
}

/** Google's client secret as the Daraja secrets: a new one encrypted, "set" keeps the stored one. */
function sealGoogleSecret(stored: TenantSettings, patch: TenantSettingsPatch, cipher: DataCipher, details: ErrorDetail[]): TenantSettingsPatch {
  const google = patch.oidc?.google;
  const value = google?.[GOOGLE_SECRET_FIELD];
  if (!google || typeof value !== "string") return patch;
  const next = { ...google };
  if (value !== MASKED_SECRET) next[GOOGLE_SECRET_FIELD] = cipher.encrypt(value);
  else if (stored.oidc?.google?.[GOOGLE_SECRET_FIELD] !== undefined) delete next[GOOGLE_SECRET_FIELD];
  else details.push({ path: `settings.oidc.google.${GOOGLE_SECRET_FIELD}`, message: { key: "detail.secret_nothing_to_keep", params: { field: GOOGLE_SECRET_FIELD } } });
  return { ...patch, oidc: { ...patch.oidc, google: next } };
}
