import { z } from "zod";
import { oneLineString, uncoerced } from "../shared/fields.js";

/** Per-tenant settings that override process defaults (decisions.md "Tenants"). */
export const tenantSettingsSchema = z
  .object({
    displayName: oneLineString().trim().min(1).max(100).optional(),
    appUrl: oneLineString().pipe(z.url({ protocol: /^https?$/ })).optional(),
    requireVerifiedEmail: uncoerced(z.boolean()).optional(),
    corsOrigins: z.array(oneLineString().pipe(z.url({ protocol: /^https?$/ }))).max(50).optional(),
    momo: z
      .object({
        shortcode: z.string().regex(/^\d{5,7}$/).optional(),
        passkey: oneLineString().min(1).max(200).optional(),
        consumerKey: oneLineString().min(1).max(200).optional(),
        consumerSecret: oneLineString().min(1).max(200).optional(),
        transactionType: z.enum(["CustomerPayBillOnline", "CustomerBuyGoodsOnline"]).optional(),
        tillNumber: z.string().regex(/^\d{5,7}$/).optional(),
        minAmount: uncoerced(z.number().int().min(1)).optional(),
        maxAmount: uncoerced(z.number().int().max(250_000)).optional(),
      })
      .optional(),
  })
  .strip();

export type TenantSettings = z.infer<typeof tenantSettingsSchema>;

export const tenantIdSchema = z
  .string()
  .trim()
  .regex(/^[a-z0-9][a-z0-9-]{1,62}$/, "A tenant id is 2-63 lower-case letters, digits or hyphens, starting with a letter or digit.");
