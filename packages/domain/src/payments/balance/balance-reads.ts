/** GET /api/v1/admin/tenants/{id}/balance: the shop's latest balance request, as its result left it. */
import { darajaRequests } from "@mteja/db";
import { DomainError } from "../../shared/errors.js";
import type { Context } from "../shared/ports.js";
import { BALANCE_FLOW, balanceView } from "./balance-rows.js";
import { tenantNamed } from "./balance-tenant.js";
import { balanceMessages } from "./messages.js";
import type { BalanceView } from "./schemas.js";

export async function latestBalance(ctx: Context, tenantId: string): Promise<BalanceView> {
  const { db } = await tenantNamed(ctx, tenantId);
  const latest = await darajaRequests.findLatest(db, BALANCE_FLOW);
  if (!latest) throw new DomainError("NOT_FOUND", balanceMessages.neverAsked);
  return balanceView(latest);
}
