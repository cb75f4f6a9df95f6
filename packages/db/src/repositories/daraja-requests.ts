/**
 * The daraja_requests table (docs/mpesa.md#requests-without-money): requests to Daraja whose result
 * comes by callback and moves no money (Account Balance), one family for every flow, each row naming
 * its flow. A request goes through the tenant's client (scoped to its mode as well); its callback's
 * settlement takes raw SQL (`RawSql`, the transaction callbacks are applied in) and names the request
 * by Daraja's ids. What a request asks and what its result says are its flow's (JSON); which status a
 * result may settle is the payments area's rule: the statuses come from the caller.
 */
import type { Prisma } from "../generated/prisma/client.js";
import type { DarajaRequestModel } from "../generated/prisma/models.js";
import type { RawSql } from "../raw-sql.js";
import { prismaOf, type AnyClient } from "./clients.js";

/** A request to store: its flow, what it asks, its status and times (the tenant and mode: the client's). */
export type NewDarajaRequest = Prisma.DarajaRequestUncheckedCreateInput;

export function create(client: AnyClient, data: NewDarajaRequest): Promise<DarajaRequestModel> {
  return prismaOf(client).darajaRequest.create({ data });
}

/** The latest request of a flow the client sees (its tenant's, of its mode), or null when it never asked. */
export function findLatest(client: AnyClient, flow: string): Promise<DarajaRequestModel | null> {
  const orderBy = [{ requestedAt: "desc" as const }, { id: "desc" as const }];
  return prismaOf(client).darajaRequest.findFirst({ where: { flow }, orderBy });
}

/** Stores Daraja's ids from the request's acknowledgement unless a result already named the request. */
export async function storeDarajaIds(
  client: AnyClient,
  id: string,
  ids: { originatorConversationId: string; conversationId: string; updatedAt: Date },
): Promise<void> {
  await prismaOf(client).darajaRequest.updateMany({ where: { id, originatorConversationId: null }, data: ids });
}

/** Writes `changes` if the request is still in `status`; whether it did. */
export async function updateIfStill(
  client: AnyClient,
  { id, status }: { id: string; status: string },
  changes: Prisma.DarajaRequestUncheckedUpdateManyInput,
): Promise<boolean> {
  return (await prismaOf(client).darajaRequest.updateMany({ where: { id, status }, data: changes })).count === 1;
}

/** A request as a callback's settlement reads it, locked. */
export interface LockedDarajaRequest {
  id: string;
  tenantId: string;
  livemode: boolean;
  status: string;
  originatorConversationId: string | null;
}

type LockedRow = {
  id: string;
  tenant_id: string;
  livemode: boolean;
  status: string;
  originator_conversation_id: string | null;
};

function locked(row: LockedRow | undefined): LockedDarajaRequest | undefined {
  if (!row) return undefined;
  const { id, tenant_id: tenantId, livemode, status, originator_conversation_id: originatorConversationId } = row;
  return { id, tenantId, livemode, status, originatorConversationId };
}

/** Where a result that names no stored ids is looked for: that tenant's latest request of that mode in that status. */
export interface Unacknowledged {
  tenantId: string;
  livemode: boolean;
  status: string;
}

/**
 * Locks (FOR UPDATE) the flow's request with Daraja's OriginatorConversationID, else its ConversationID;
 * else, given `unacknowledged`, that tenant's latest request of the flow in that mode and status without
 * Daraja's ids (a result that beat the storing of the acknowledgement, or one whose request had an
 * unknown outcome).
 */
export async function lockByIds(
  tx: RawSql,
  flow: string,
  ids: { originatorConversationId?: string | undefined; conversationId?: string | undefined },
  unacknowledged?: Unacknowledged,
): Promise<LockedDarajaRequest | undefined> {
  let rows: LockedRow[] = [];
  if (ids.originatorConversationId) {
    rows = await tx.$queryRaw`
      SELECT id::text AS id, tenant_id, livemode, status, originator_conversation_id FROM daraja_requests
       WHERE flow = ${flow} AND originator_conversation_id = ${ids.originatorConversationId} FOR UPDATE`;
  }
  if (rows.length === 0 && ids.conversationId) {
    rows = await tx.$queryRaw`
      SELECT id::text AS id, tenant_id, livemode, status, originator_conversation_id FROM daraja_requests
       WHERE flow = ${flow} AND conversation_id = ${ids.conversationId} FOR UPDATE`;
  }
  if (rows.length === 0 && unacknowledged) {
    rows = await tx.$queryRaw`
      SELECT id::text AS id, tenant_id, livemode, status, originator_conversation_id FROM daraja_requests
       WHERE flow = ${flow} AND tenant_id = ${unacknowledged.tenantId} AND livemode = ${unacknowledged.livemode}
         AND status = ${unacknowledged.status} AND originator_conversation_id IS NULL AND conversation_id IS NULL
       ORDER BY requested_at DESC, id DESC LIMIT 1 FOR UPDATE`;
  }
  return locked(rows[0]);
}

/** What a result or a time-out writes to the locked request. */
export interface Settlement {
  status: string;
  originatorConversationId: string;
  conversationId: string;
  /** What its flow read from the result (stored as JSON); null when nothing was read. */
  result: unknown;
  resultCode: string | null;
  resultDesc: string | null;
  updatedAt: Date;
}

/** Writes a settlement to the locked request (its ids too, when the acknowledgement never stored them). */
export async function settle(tx: RawSql, id: string, settlement: Settlement): Promise<void> {
  const result = settlement.result === null ? null : JSON.stringify(settlement.result);
  await tx.$executeRaw`
    UPDATE daraja_requests
       SET status = ${settlement.status}, result = ${result}::jsonb,
           result_code = ${settlement.resultCode}, result_desc = ${settlement.resultDesc},
           updated_at = ${settlement.updatedAt},
           originator_conversation_id = COALESCE(originator_conversation_id, ${settlement.originatorConversationId}),
           conversation_id = COALESCE(conversation_id, ${settlement.conversationId})
     WHERE id = ${id}::uuid`;
}
