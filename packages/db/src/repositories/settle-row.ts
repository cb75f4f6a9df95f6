/**
 * Settling a payment, payout or refund in one statement (payments.settle and its kin): the row's
 * changes, the stored callback's outcome as the update's precondition, and the event reporting the
 * change, so a callback costs one round trip for all three (docs/performance.md).
 */
import { updateHeldRowIf, type ModelTable, type RowChanges } from "../model-rows.js";
import type { RawSql } from "../raw-sql.js";
import { outcomeStatement, type UnlessHandled } from "./callbacks.js";
import { eventWrites, ifUpdated, type EventRow } from "./webhook-event-writes.js";

export interface SettleWrites {
  /** The event reporting the change, written by the same statement only if the row was. */
  event?: EventRow | undefined;
  /** A callback's outcome, recorded first: the row is written only if it was (else nothing is). */
  unlessHandled?: UnlessHandled | undefined;
}

/**
 * Writes `changes` to `row`, held locked as read (or, given `unlessHandled.asRead`, the row that statement
 * locks while it is still as read); the row as it now is, or undefined when `unlessHandled` found the
 * stored callback handled (or the row changed) and nothing was written.
 */
export function settleRow<Model extends { id: string }>(
  tx: RawSql,
  table: ModelTable<Model>,
  row: Model,
  changes: RowChanges<Model>,
  { event, unlessHandled }: SettleWrites,
): Promise<Model | undefined> {
  const alsoWrite = event && eventWrites(event, { onlyIf: ifUpdated });
  return updateHeldRowIf(tx, table, row, changes, { onlyIf: unlessHandled && outcomeStatement(unlessHandled), alsoWrite });
}
