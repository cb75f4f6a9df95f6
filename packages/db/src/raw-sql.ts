/**
 * Raw SQL in a transaction without Prisma (docs/performance.md, "Callback ingestion"). Code
 * that must run on either kind of transaction — a payment's settlement runs in Prisma transactions
 * (STK queries, the reconciler) and in the plain one of callbacks — is written against `RawSql`, the
 * two tagged-template methods Prisma's transaction clients already have. `poolTransactions` and
 * `pgliteTransactions` give the plain kind (`Database.transaction(door, "plain", …)`): one pooled pg client
 * between BEGIN and COMMIT, or PGlite's own transaction, at a fifth of the CPU Prisma's interactive
 * transaction costs per statement.
 */
import type { PGlite, Transaction as PGliteTransaction } from "@electric-sql/pglite";
import { createHash } from "node:crypto";
import type pg from "pg";
import { Prisma } from "./generated/prisma/client.js";

export type SqlQuery = TemplateStringsArray | Prisma.Sql;

/** The raw half of a Prisma client, which plain transactions offer too. */
export interface RawSql {
  /** Rows as the driver reads them: cast ids to text and read counts as numbers in the statement. */
  $queryRaw<T = unknown>(query: SqlQuery, ...values: unknown[]): PromiseLike<T>;
  /** The number of rows the statement changed. */
  $executeRaw(query: SqlQuery, ...values: unknown[]): PromiseLike<number>;
}

/**
 * Raw SQL on a pg pool or one of its clients. On the pool each statement is a transaction of its own
 * (`Database.transaction(door, "autocommit", …)`): for a write that one statement makes whole, guarded by
 * what it checks itself, without the round trips of BEGIN and COMMIT (a callback's apply without locks,
 * docs/performance.md, "Callback ingestion").
 */
export function pgStatements(target: pg.Pool | pg.PoolClient, nameOf: StatementNames): RawSql {
  return rawSqlOn(async (text, values) => {
    const answer = await sendStatement(target, nameOf, text, values);
    return { rows: answer.rows, changed: answer.rowCount ?? 0 };
  });
}

/** Raw SQL on PGlite (each statement its own transaction) or in one of its transactions. */
export function pgliteStatements(target: PGlite | PGliteTransaction): RawSql {
  return rawSqlOn(async (text, values) => {
    try {
      const answer = await target.query(text, values);
      return { rows: answer.rows, changed: answer.affectedRows ?? 0 };
    } catch (error) {
      throw withoutParameters(error);
    }
  });
}

/**
 * Fixed words (a state machine's statuses) as SQL literals, `'a', 'b'`, for a statement's text: a
 * prepared statement's generic plan knows how rare a literal status is, where `status = ANY($n)` is
 * planned as if it matched a third of the table (a sequential scan, on a million rows). Only letters,
 * digits and underscores are taken: anything else is a caller's mistake, never data.
 */
export function sqlWords(words: readonly string[]): string {
  if (words.length === 0) throw new Error("sqlWords: no words");
  for (const word of words) if (!/^[A-Za-z0-9_]+$/.test(word)) throw new Error(`sqlWords: not a fixed word: ${JSON.stringify(word)}`);
  return words.map((word) => `'${word}'`).join(", ");
}

/** Runs `fn` in one transaction: committed when it returns, rolled back when it throws. */
export type RawTransactions = <T>(fn: (tx: RawSql) => Promise<T>) => Promise<T>;

type Run = (text: string, values: unknown[]) => Promise<{ rows: unknown[]; changed: number }>;

function statementOf(query: SqlQuery, values: unknown[]): Prisma.Sql {
  return query instanceof Prisma.Sql ? query : Prisma.sql(query, ...values);
}

function rawSqlOn(run: Run): RawSql {
  return {
    $queryRaw: async <T>(query: SqlQuery, ...values: unknown[]) => {
      const statement = statementOf(query, values);
      return (await run(statement.text, statement.values)).rows as T;
    },
    $executeRaw: async (query: SqlQuery, ...values: unknown[]) => {
      const statement = statementOf(query, values);
      return (await run(statement.text, statement.values)).changed;
    },
  };
}

/** The most statement texts one database keeps prepared on each of its connections (DATABASE_PREPARED_STATEMENTS). */
export const PREPARED_STATEMENTS_MAX = 500;

/**
 * Names for statement texts, so each connection parses and plans a statement once and then sends only
 * its name and values (pg's prepared statements): a callback's statements are long — the full row's
 * columns, the event's CTEs — and sending and parsing their text on every round trip costs CPU on both
 * sides (docs/performance.md, "Prepared statements"). A text is named by its hash; once
 * `max` texts have names (a statement whose text varies with its input, say), the rest run unnamed, so
 * no connection holds an unbounded number of prepared statements; `max` 0 names none (a pooler that
 * hands each transaction another server connection cannot keep them).
 */
export function createStatementNames(max = PREPARED_STATEMENTS_MAX): (text: string) => string | undefined {
  // Found by length, then compared whole, not kept in a Map by text: a statement's text is built anew
  // for every call, and a Map would hash all of it (kilobytes, a callback's statements) on each lookup.
  const byLength = new Map<number, { text: string; name: string }[]>();
  let named = 0;
  return (text) => {
    const sameLength = byLength.get(text.length);
    const known = sameLength?.find((entry) => entry.text === text);
    if (known !== undefined || named >= max) return known?.name;
    const name = `mteja_${createHash("sha256").update(text).digest("base64url").slice(0, 22)}`;
    named += 1;
    if (sameLength) sameLength.push({ text, name });
    else byLength.set(text.length, [{ text, name }]);
    return name;
  };
}

export type StatementNames = ReturnType<typeof createStatementNames>;

/**
 * Sends one statement on a pool or a client: by name when it has parameters and `nameOf` names it,
 * else as text (a statement without parameters may be a script of several, which cannot be prepared).
 */
export function sendStatement(target: pg.Pool | pg.PoolClient, nameOf: StatementNames, text: string, values: readonly unknown[] = []): Promise<pg.QueryResult> {
  const name = values.length > 0 ? nameOf(text) : undefined;
  return name ? target.query({ name, text, values: [...values] }) : target.query(text, [...values]);
}

/** `nameOf`: the pool's statement names, shared with its other users (a name is prepared once per connection). */
export function poolTransactions(pool: pg.Pool, nameOf: StatementNames = createStatementNames()): RawTransactions {
  return async (fn) => {
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      await client.query("BEGIN");
      const result = await fn(pgStatements(client, nameOf));
      await client.query("COMMIT");
      return result;
    } catch (error) {
      // A client whose ROLLBACK fails is in an unknown state: the pool discards it instead of reusing it.
      await client.query("ROLLBACK").catch((rollbackError: Error) => (broken = rollbackError));
      throw error;
    } finally {
      client.release(broken);
    }
  };
}

/**
 * PGlite puts a failed statement's parameters on its error (pg does not): an error logged with its
 * fields would write them — phone numbers, receipts — to the log.
 */
function withoutParameters(error: unknown): unknown {
  if (typeof error === "object" && error !== null && "params" in error) delete (error as { params?: unknown }).params;
  return error;
}

export function pgliteTransactions(pglite: PGlite): RawTransactions {
  // PGlite's transaction holds its one connection; Prisma's adapter takes the same lock for its own.
  return (fn) => pglite.transaction((tx: PGliteTransaction) => fn(pgliteStatements(tx)));
}

const uniqueViolation = "23505";

/**
 * A unique index refused a write, from either kind of transaction: Prisma's model queries report
 * P2002, its raw ones P2010 with the server's SQLSTATE in the driver adapter's cause, and pg or PGlite
 * report SQLSTATE 23505 directly.
 */
export function isUniqueViolation(error: unknown): boolean {
  if (error instanceof Prisma.PrismaClientKnownRequestError) {
    const cause = (error.meta as { driverAdapterError?: { cause?: { originalCode?: unknown } } } | undefined)?.driverAdapterError?.cause;
    return error.code === "P2002" || (error.code === "P2010" && cause?.originalCode === uniqueViolation);
  }
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === uniqueViolation;
}
