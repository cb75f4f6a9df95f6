/**
 * Storing a Daraja callback verbatim before anything else (docs/mpesa.md#callbacks): one INSERT,
 * committed on its own. Plain SQL on the shared pool because every callback pays for it and Prisma's
 * model query costs several times the CPU of the statement itself (docs/performance.md, "Callback
 * path, round two"). Momo callbacks belong to no tenant.
 */
import type { SqlRunner } from "../migrator.js";

export interface StoredCallbackInsert {
  kind: string;
  rawBody: string;
  sourceIp: string | null;
  receivedAt: Date;
  /** accepted | malformed | rejected: what receiving it decided (applying records the rest). */
  outcome: string;
  correlationId: string | null;
  flagReason: string | null;
  accountReference: string | null;
  /** The tenant whose token the callback's URL carried; null: the shared secret (docs/mpesa.md#callback-tokens). */
  tokenTenantId: string | null;
}

/** Stores the callback; its id. */
export async function insertStoredCallback(sql: SqlRunner, row: StoredCallbackInsert): Promise<string> {
  const rows = await sql.query(
    `INSERT INTO momo_callbacks (id, kind, raw_body, source_ip, received_at, outcome, correlation_id, flag_reason, account_reference, token_tenant_id)
     VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id::text AS id`,
    [row.kind, row.rawBody, row.sourceIp, row.receivedAt, row.outcome, row.correlationId, row.flagReason, row.accountReference, row.tokenTenantId],
  );
  return (rows[0] as { id: string }).id;
}
