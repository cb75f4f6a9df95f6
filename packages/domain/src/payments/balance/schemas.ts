import { z } from "zod";
import { envelope } from "../../shared/envelope.js";
import { tenantIdSchema } from "../../shared/tenant-settings.js";

export const balanceTenantInput = z.object({ id: tenantIdSchema });
export type BalanceTenantInput = z.infer<typeof balanceTenantInput>;

/** pending until Daraja's result (or its time-out) arrives. */
export const balanceStatuses = ["pending", "succeeded", "failed"] as const;
export type BalanceStatus = (typeof balanceStatuses)[number];

export const requestedBalanceView = z.object({
  id: z.string(),
  status: z.literal("pending"),
  requested_at: z.string(),
});
export type RequestedBalanceView = z.infer<typeof requestedBalanceView>;
export const requestBalanceOutput = envelope(requestedBalanceView);

const shillings = (what: string) => z.number().describe(`${what}, in shillings (may be negative, as Charges Paid).`);

export const accountBalanceView = z.object({
  name: z.string().describe("As Daraja names it: Working Account, Utility Account, Merchant Account, …"),
  currency: z.string(),
  current: shillings("The account's total"),
  available: shillings("What can be used now"),
  reserved: shillings("Held"),
  uncleared: shillings("Not yet cleared"),
});

export const balanceView = z.object({
  id: z.string(),
  status: z.enum(balanceStatuses),
  accounts: z.array(accountBalanceView).describe("Empty until the request succeeds."),
  result_desc: z.string().nullable().describe("Daraja's ResultDesc, or why the request failed; null while pending."),
  requested_at: z.string(),
  updated_at: z.string(),
});
export type BalanceView = z.infer<typeof balanceView>;
export const balanceOutput = envelope(balanceView);
