/**
 * A balance request as a row of daraja_requests (@mteja/db's `darajaRequests`, the requests whose
 * result comes by callback and moves no money): the flow it names, what its `request` and `result`
 * hold, and how a row reads back.
 */
import type { AccountBalanceEntry } from "@mteja/daraja";
import type { DarajaRequestModel } from "@mteja/db";
import type { BalanceStatus, BalanceView } from "./schemas.js";

/** The `flow` of its rows: the flow's name in the registry (flow.ts). */
export const BALANCE_FLOW = "balance";

/** What a request asks: the balance of this short code (the B2C short code, PartyA). */
export interface BalanceAsked {
  shortCode: string;
}

/** What a result said: the accounts read from it, and its AccountBalance string as Daraja sent it. */
export interface BalanceResult {
  accounts: AccountBalanceEntry[] | null;
  rawBalance: string | null;
}

export function balanceView(row: DarajaRequestModel): BalanceView {
  const result = row.result as BalanceResult | null;
  return {
    id: row.id,
    status: row.status as BalanceStatus,
    accounts: result?.accounts ?? [],
    result_desc: row.resultDesc,
    requested_at: row.requestedAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
