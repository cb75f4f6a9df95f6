/**
 * The erased customer's stored callbacks, their phone masked (docs/data-rights.md#erasure). Callbacks
 * belong to no tenant (they are stored before anyone knows whose they are), so they are found by
 * Daraja's ids of the customer's own rows — the shop's rows, read through its scoped client — and these
 * ids (CheckoutRequestID, TransID, receipts, conversation ids) are unique across every shop. A callback
 * that names none of them (refused for its token, or malformed: not a callback that could be read) is
 * no one's as far as Mteja can tell, and stays as received.
 *
 * New callbacks are still stored verbatim before they are applied: only the erasure rewrites a body.
 */
import { dataRights } from "@mteja/db";
import type { DataRightsPorts } from "./ports.js";
import { maskStoredCallbackBody } from "./mask-evidence.js";

/** `batchSize` ids per query (each names a few callbacks), and as many callbacks read per round trip. */
export async function maskStoredCallbacks(deps: DataRightsPorts, callbackIds: readonly string[], knownPhones: readonly string[], batchSize: number): Promise<void> {
  for (let start = 0; start < callbackIds.length; start += batchSize) {
    const ids = callbackIds.slice(start, start + batchSize);
    let after: string | undefined;
    for (;;) {
      const rows = await dataRights.callbacksNaming(deps.db.unscoped("erasure"), ids, { after, limit: batchSize });
      for (const row of rows) {
        const rawBody = maskStoredCallbackBody(row.rawBody, knownPhones);
        if (rawBody !== row.rawBody) await dataRights.rewriteCallbackBody(deps.db.unscoped("erasure"), row.id, rawBody);
      }
      if (rows.length < batchSize) break;
      after = rows[rows.length - 1]!.id;
    }
  }
}
