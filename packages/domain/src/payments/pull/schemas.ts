import { z } from "zod";
import { envelope } from "../../shared/envelope.js";
import { documentedDates, kenyanPhoneField, oneLineString } from "../../shared/fields.js";
import { tenantIdSchema } from "../../shared/tenant-settings.js";

export const registerPullInput = z.object({
  id: tenantIdSchema,
  nominated_number: kenyanPhoneField.describe(
    "The phone number on the short code's KYC in M-Pesa's organisation portal (Organization > Details); sent " +
      "to Daraja as 2547…/2541….",
  ),
});
export type RegisterPullInput = z.infer<typeof registerPullInput>;

export const registerPullView = z.object({
  tenant_id: z.string(),
  short_code: z.string(),
  nominated_number: z.string(),
  status: z
    .enum(["registered", "already_registered"])
    .describe("Daraja's 1000 (registered now) or 1001 (registered before)."),
  response_description: z.string().describe("Daraja's ResponseDescription."),
  callback_url: z.string().describe("Given to Daraja as CallBackURL, without its secret token."),
  registered_at: z.string(),
  next_pull_at: z
    .string()
    .nullable()
    .describe("When the sweep pulls the short code next; null while the sweep is off (MOMO_PULL_INTERVAL_SECONDS=0)."),
});
export const registerPullOutput = envelope(registerPullView);

const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

/** A date-time with its zone (`Z` or an offset): a window's ends are instants. */
const instant = (field: string) =>
  oneLineString({ error: `${field} must be a date-time` })
    .trim()
    .refine(
      (value) =>
        INSTANT.test(value) && !Number.isNaN(Date.parse(value)),
      { message: `${field} must be an ISO 8601 date-time with its zone (e.g. 2026-12-02T08:00:00+03:00)` },
    )
    .transform((value) => new Date(value))
    .meta({ ...documentedDates.instant, examples: ["2026-12-02T08:00:00+03:00"] })
    .optional();

export const pullNowInput = z
  .object({
    from: instant("from").describe("The window's start (ISO 8601, at most 48 hours ago); default 48 hours ago."),
    to: instant("to").describe("The window's end (ISO 8601, after `from`, not in the future); default now."),
  })
  .default({});
export type PullNowInput = z.infer<typeof pullNowInput>;

export const pullNowView = z.object({
  pulled: z.number().int().describe("Transactions Daraja listed for the window (each receipt once)."),
  recovered: z
    .number()
    .int()
    .describe(
      "Receipts Mteja did not hold and now does: payments whose confirmation never came, applied as it would " +
        "have been.",
    ),
});
export type PullNowView = z.infer<typeof pullNowView>;
export const pullNowOutput = envelope(pullNowView);
