/** GET /api/v1/admin/tenants/{id}/balance: the shop's latest balance request, as its result left it. */
import { accountBalances, type AccountBalanceModel } from "@mteja/db";
import type { AccountBalanceEntry } from "@mteja/daraja";
import { DomainError } from "../../shared/errors.js";
import type { Context } from "../shared/ports.js";
import { tenantNamed } from "./balance-tenant.js";
import type { BalanceStatus, BalanceView } from "./schemas.js";

function balanceView(row: AccountBalanceModel): BalanceView {
  return {
    id: row.id,
    status: row.status as BalanceStatus,
    accounts: (row.accounts as AccountBalanceEntry[] | null) ?? [],
    result_desc: row.resultDesc,
    requested_at: row.requestedAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export async function latestBalance(ctx: Context, tenantId: string): Promise<BalanceView> {
  const { tenant, db } = await tenantNamed(ctx, tenantId);
  const latest = await accountBalances.findLatest(db, tenant.id);
  if (!latest) throw new DomainError("NOT_FOUND", "not_found.balance");
  return balanceView(latest);
}
