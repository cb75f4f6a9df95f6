import { LOCALES } from "@mteja/i18n";
import { z } from "zod";
import { oneLineString, uncoerced } from "./fields.js";

/** What the admin API shows, and accepts back, in place of a stored Daraja secret. */
export const MASKED_SECRET = "set";

/** Daraja secrets: encrypted at rest (./daraja-secrets.ts) and never shown. */
export const MOMO_SECRET_FIELDS = ["consumerSecret", "passkey", "securityCredential"] as const;
export type MomoSecretField = (typeof MOMO_SECRET_FIELDS)[number];

/**
 * A tenant's own M-Pesa credentials come in groups, each all or nothing: the Daraja app with its STK
 * short code, and the B2C (payout) account. A partial group would mix the tenant's and the platform's.
 */
export const MOMO_CREDENTIAL_GROUPS = {
  stk: ["shortcode", "consumerKey", "consumerSecret", "passkey"],
  b2c: ["b2cShortcode", "initiatorName", "securityCredential"],
} as const;

const shortcode = z.string().regex(/^\d{5,7}$/, "must be 5-7 digits").meta({ examples: ["174379"] });
const secret = oneLineString().min(1).max(200);

const b2cFields = {
  enabled: uncoerced(z.boolean()),
  /** Largest single payout, whole shillings. */
  maxAmount: uncoerced(z.number().int().min(10).max(250_000)),
  /** Shillings paid out per Nairobi day (payouts not FAILED). */
  dailyLimit: uncoerced(z.number().int().min(10).max(1_000_000_000)),
};

/** C2B (docs/mpesa.md#c2b): validate = false accepts every paybill/till payment at validation. */
const c2bFields = {
  validate: uncoerced(z.boolean()),
};

const momoFields = {
  shortcode,
  passkey: secret,
  consumerKey: oneLineString().min(1).max(200),
  consumerSecret: secret,
  transactionType: z.enum(["CustomerPayBillOnline", "CustomerBuyGoodsOnline"]),
  tillNumber: shortcode,
  minAmount: uncoerced(z.number().int().min(1)),
  maxAmount: uncoerced(z.number().int().max(250_000)),
  /** STK push only for a payment intent (docs/payment-intents.md#requireintent). */
  requireIntent: uncoerced(z.boolean()),
  b2cShortcode: shortcode,
  initiatorName: oneLineString().min(1).max(100),
  securityCredential: z.string().min(1).max(2000).regex(/^[A-Za-z0-9+/]+={0,2}$/, "must be base64 (Daraja's encrypted initiator password)"),
};

/**
 * Sign in with Google (docs/sign-in.md#sign-in-with-google): the shop's OAuth client at Google, and the
 * app's own pages the service may send the browser back to after sign-in. The secret is stored
 * encrypted and shown as "set", as the Daraja secrets are.
 */
const googleFields = {
  clientId: oneLineString().min(1).max(300),
  clientSecret: secret,
  redirectUris: z.array(oneLineString().max(2000).pipe(z.url({ protocol: /^https?$/ }))).max(20),
};

/** The OAuth client secret of Sign in with Google: encrypted at rest, shown as "set". */
export const GOOGLE_SECRET_FIELD = "clientSecret" as const;

/**
 * A shop's own numbers for the limits counted per shop (docs/limits.md#per-shop-numbers): events in the
 * rule's window, in place of the process's number.
 */
const limitFields = {
  phone_codes_per_tenant: uncoerced(z.number().int().min(1).max(1_000_000)),
  sms_texts_per_ip: uncoerced(z.number().int().min(1).max(1_000_000)),
  sms_texts_per_account: uncoerced(z.number().int().min(1).max(1_000_000)),
  sms_texts_signed_in_per_tenant: uncoerced(z.number().int().min(1).max(1_000_000)),
  sms_texts_signed_in_per_ip: uncoerced(z.number().int().min(1).max(1_000_000)),
  security_notices_per_account: uncoerced(z.number().int().min(1).max(1_000_000)),
};

const topFields = {
  displayName: oneLineString().trim().min(1).max(100),
  appUrl: oneLineString().pipe(z.url({ protocol: /^https?$/ })),
  requireVerifiedEmail: uncoerced(z.boolean()),
  /** Whether phone/verify creates an account for an unknown phone (docs/phone-sign-in.md); default true. */
  phoneSignup: uncoerced(z.boolean()),
  corsOrigins: z.array(oneLineString().pipe(z.url({ protocol: /^https?$/ }))).max(50),
  /** The shop's language where neither the user nor the request names one (docs/i18n.md#which-language). */
  locale: z.enum(LOCALES),
};

type Fields = Record<string, z.ZodType>;
const optional = <T extends Fields>(fields: T) => z.object(fields).partial();
/** Every field may also be null: JSON Merge Patch's "remove this key". */
function removable<T extends Fields>(fields: T) {
  const entries = Object.entries(fields).map(([key, schema]) => [key, schema.nullable().optional()]);
  return z.object(Object.fromEntries(entries) as { [K in keyof T]: z.ZodOptional<z.ZodNullable<T[K]>> });
}

/** Per-tenant settings that override process defaults (docs/tenants.md#settings, docs/mpesa.md "Per-shop M-Pesa"), as a new tenant is created with. */
export const tenantSettingsSchema = optional(topFields)
  .extend({ momo: optional(momoFields).extend({ b2c: optional(b2cFields).optional(), c2b: optional(c2bFields).optional() }).optional() })
  .extend({ limits: optional(limitFields).strip().optional() })
  .extend({ oidc: z.object({ google: optional(googleFields).optional() }).strip().optional() })
  .strip();

/** PATCH /api/v1/admin/tenants/:id `settings`: a JSON Merge Patch (RFC 7396) of the stored settings. */
export const tenantSettingsPatchSchema = removable(topFields)
  .extend({ momo: removable(momoFields).extend({ b2c: removable(b2cFields).nullable().optional(), c2b: removable(c2bFields).nullable().optional() }).nullable().optional() })
  .extend({ limits: removable(limitFields).strip().nullable().optional() })
  .extend({ oidc: z.object({ google: removable(googleFields).nullable().optional() }).strip().nullable().optional() })
  .strip();

/** Every field optional, and a stored value that no longer reads is dropped alone. */
function lenient<T extends Fields>(fields: T) {
  const entries = Object.entries(fields).map(([key, schema]) => [key, schema.optional().catch(undefined)]);
  return z.object(Object.fromEntries(entries) as { [K in keyof T]: z.ZodCatch<z.ZodOptional<T[K]>> });
}

/**
 * Settings as stored: secrets are ciphertext (longer than a secret may be on input). Read field by
 * field, so one unreadable value never drops the rest: a tenant must never lose its own short code
 * and fall back to the platform's (a group missing a field is unusable, see ./daraja-accounts.ts).
 */
const storedMomoSchema = lenient({
  ...momoFields,
  passkey: z.string().min(1),
  consumerSecret: z.string().min(1),
  securityCredential: z.string().min(1),
}).extend({ b2c: lenient(b2cFields).optional().catch(undefined), c2b: lenient(c2bFields).optional().catch(undefined) });

export const storedTenantSettingsSchema = lenient(topFields)
  .extend({ momo: storedMomoSchema.optional().catch(undefined) })
  .extend({ limits: lenient(limitFields).optional().catch(undefined) })
  .extend({
    oidc: z
      .object({ google: lenient({ ...googleFields, clientSecret: z.string().min(1) }).optional().catch(undefined) })
      .strip()
      .optional()
      .catch(undefined),
  })
  .strip();

export type TenantSettings = z.infer<typeof storedTenantSettingsSchema>;
export type TenantSettingsPatch = z.infer<typeof tenantSettingsPatchSchema>;
export type MomoTenantSettings = NonNullable<TenantSettings["momo"]>;
export type GoogleTenantSettings = NonNullable<NonNullable<TenantSettings["oidc"]>["google"]>;

/** The fields of each credential group that are present in part: the missing ones. */
export function missingCredentialFields(momo: Partial<Record<string, unknown>> | undefined): string[] {
  if (!momo) return [];
  const missing: string[] = [];
  for (const group of Object.values(MOMO_CREDENTIAL_GROUPS)) {
    const present = group.filter((field) => momo[field] !== undefined);
    if (present.length > 0 && present.length < group.length) missing.push(...group.filter((field) => momo[field] === undefined));
  }
  return missing;
}

export const tenantIdSchema = z
  .string()
  .trim()
  .regex(/^[a-z0-9][a-z0-9-]{1,62}$/, "A tenant id is 2-63 lower-case letters, digits or hyphens, starting with a letter or digit.");
