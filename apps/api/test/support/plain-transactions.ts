/**
 * Puts a test between the service and the plain SQL of its transactions of one kind
 * (`Database.transaction(door, "plain" | "autocommit", …)`): to act between two of a callback's
 * statements, as another request would.
 */
import type { Database, Door, PlainTransaction, RawSql, Transactions } from "@mteja/db";

type Run = (door: Door, second: unknown, third?: unknown) => Promise<unknown>;

/** Until the returned function is called, each such transaction's SQL is `wrap(sql)`. */
export function wrapPlainTransactions(db: Database, kind: PlainTransaction, wrap: (sql: RawSql) => RawSql): () => void {
  const original = db.transaction;
  const run = original as Run;
  const wrapped: Run = (door, second, third) => {
    if (second !== kind) return run(door, second, third);
    const fn = third as (tx: RawSql) => Promise<unknown>;
    return run(door, second, (sql: RawSql) => fn(wrap(sql)));
  };
  db.transaction = wrapped as Transactions;
  return () => {
    db.transaction = original;
  };
}
