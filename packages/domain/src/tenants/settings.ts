import { z } from "zod";
import { uncoerced } from "../shared/fields.js";

/** Per-tenant settings that override process defaults (docs/tenants.md#settings). */
export const tenantSettingsSchema = z
  .object({
    displayName: z.string().trim().min(1).max(100).optional(),
    appUrl: z.url({ protocol: /^https?$/ }).optional(),
    requireVerifiedEmail: uncoerced(z.boolean()).optional(),
    corsOrigins: z.array(z.url({ protocol: /^https?$/ })).max(50).optional(),
    momo: z
      .object({
        shortcode: z.string().regex(/^\d{5,7}$/).optional(),
        passkey: z.string().min(1).max(200).optional(),
        consumerKey: z.string().min(1).max(200).optional(),
        consumerSecret: z.string().min(1).max(200).optional(),
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
