/**
 * The account_balances table (docs/mpesa.md#account-balance): a shop's requests for the balance of its
 * B2C short code. A request goes through the tenant's client; its result callback's settlement takes
 * raw SQL (`RawSql`, the transaction callbacks are applied in) and names the request by Daraja's ids.
 * Which status a result may settle is the payments area's rule: the statuses come from the caller.
 */
import type { Prisma } from "../generated/prisma/client.js";
import type { AccountBalanceModel } from "../generated/prisma/models.js";
import type { RawSql } from "../raw-sql.js";
import { prismaOf, type AnyClient } from "./clients.js";

/** A request to store: every column a request sets. */
export type NewAccountBalance = Prisma.AccountBalanceUncheckedCreateInput;

export function create(client: AnyClient, data: NewAccountBalance): Promise<AccountBalanceModel> {
  return prismaOf(client).accountBalance.create({ data });
}

/** The tenant's latest request, or null when it never asked. */
export function findLatest(client: AnyClient, tenantId: string): Promise<AccountBalanceModel | null> {
  const orderBy = [{ requestedAt: "desc" as const }, { id: "desc" as const }];
  return prismaOf(client).accountBalance.findFirst({ where: { tenantId }, orderBy });
}

/** Stores Daraja's ids from the request's acknowledgement unless a result already named the request. */
export async function storeDarajaIds(
  client: AnyClient,
  id: string,
  ids: { originatorConversationId: string; conversationId: string; updatedAt: Date },
): Promise<void> {
  await prismaOf(client).accountBalance.updateMany({ where: { id, originatorConversationId: null }, data: ids });
}

/** Writes `changes` if the request is still in `status`; whether it did. */
export async function updateIfStill(
  client: AnyClient,
  { id, status }: { id: string; status: string },
  changes: Prisma.AccountBalanceUncheckedUpdateManyInput,
): Promise<boolean> {
  return (await prismaOf(client).accountBalance.updateMany({ where: { id, status }, data: changes })).count === 1;
}

/** A request as a callback's settlement reads it, locked. */
export interface LockedAccountBalance {
  id: string;
  tenantId: string;
  status: string;
  originatorConversationId: string | null;
}

type LockedRow = { id: string; tenant_id: string; status: string; originator_conversation_id: string | null };

function locked(row: LockedRow | undefined): LockedAccountBalance | undefined {
  if (!row) return undefined;
  const { id, tenant_id: tenantId, status, originator_conversation_id: originatorConversationId } = row;
  return { id, tenantId, status, originatorConversationId };
}

/**
 * Locks (FOR UPDATE) the request with Daraja's OriginatorConversationID, else its ConversationID;
 * else, given `unacknowledged`, that tenant's latest request in that status without Daraja's ids (a
 * result that beat the storing of the acknowledgement, or one whose request had an unknown outcome).
 */
export async function lockByIds(
  tx: RawSql,
  ids: { originatorConversationId?: string | undefined; conversationId?: string | undefined },
  unacknowledged?: { tenantId: string; status: string },
): Promise<LockedAccountBalance | undefined> {
  let rows: LockedRow[] = [];
  if (ids.originatorConversationId) {
    rows = await tx.$queryRaw`SELECT id::text AS id, tenant_id, status, originator_conversation_id FROM account_balances
                               WHERE originator_conversation_id = ${ids.originatorConversationId} FOR UPDATE`;
  }
  if (rows.length === 0 && ids.conversationId) {
    rows = await tx.$queryRaw`SELECT id::text AS id, tenant_id, status, originator_conversation_id FROM account_balances
                               WHERE conversation_id = ${ids.conversationId} FOR UPDATE`;
  }
  if (rows.length === 0 && unacknowledged) {
    rows = await tx.$queryRaw`
      SELECT id::text AS id, tenant_id, status, originator_conversation_id FROM account_balances
       WHERE tenant_id = ${unacknowledged.tenantId} AND status = ${unacknowledged.status}
         AND originator_conversation_id IS NULL AND conversation_id IS NULL
       ORDER BY requested_at DESC, id DESC LIMIT 1 FOR UPDATE`;
  }
  return locked(rows[0]);
}

/** What a result or a time-out writes to the locked request. */
export interface Settlement {
  status: string;
  originatorConversationId: string;
  conversationId: string;
  /** The accounts read from the result (stored as JSON); null when none were read. */
  accounts: unknown;
  rawBalance: string | null;
  resultCode: string | null;
  resultDesc: string | null;
  updatedAt: Date;
}

/** Writes a settlement to the locked request (its ids too, when the acknowledgement never stored them). */
export async function settle(tx: RawSql, id: string, settlement: Settlement): Promise<void> {
  const accounts = settlement.accounts === null ? null : JSON.stringify(settlement.accounts);
  await tx.$executeRaw`
    UPDATE account_balances
       SET status = ${settlement.status}, accounts = ${accounts}::jsonb, raw_balance = ${settlement.rawBalance},
           result_code = ${settlement.resultCode}, result_desc = ${settlement.resultDesc},
           updated_at = ${settlement.updatedAt},
           originator_conversation_id = COALESCE(originator_conversation_id, ${settlement.originatorConversationId}),
           conversation_id = COALESCE(conversation_id, ${settlement.conversationId})
     WHERE id = ${id}::uuid`;
}
