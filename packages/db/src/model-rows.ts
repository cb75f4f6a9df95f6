/**
 * Rows of Prisma's models read and written in raw SQL (raw-sql.ts), so code on either kind of
 * transaction gets the same `PaymentModel` (and so on) that Prisma's model queries return. The columns
 * come from Prisma's own field lists, each field's column being its name in snake case (the schema's
 * `@map`, checked for every table here by test/model-rows.test.ts), and a field ending in `At` is a
 * timestamp.
 */
import { Prisma } from "./generated/prisma/client.js";
import type { PaymentIntentModel, PaymentModel, PayoutModel, RefundModel } from "./generated/prisma/models.js";
import type { RawSql } from "./raw-sql.js";

export const columnOf = (field: string): string => field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

const isTimestamp = (field: string): boolean => field.endsWith("At");

/** A model's table: how to read its rows whole and how to write some of its columns. */
export interface ModelTable<Model> {
  name: string;
  /** The table's name, to put in a statement. */
  table: Prisma.Sql;
  /** The id column's type, for the cast of an id parameter. */
  idType: "uuid" | "text";
  fields: readonly (keyof Model & string)[];
  /** Every column under its field's name, for `SELECT … FROM` or `RETURNING`. */
  columns: Prisma.Sql;
  /** The same list as text, for a plain statement. */
  columnList: string;
  /** A row as Prisma would have read it (timestamps as Date, JSON parsed, whatever the driver gave). */
  fromRow(row: Record<string, unknown>): Model;
  /** Every column of the table under `alias`, each under `prefix` and its field's name: one table's part of a join. */
  prefixedColumns(alias: string, prefix: string): string;
  /** The model from a joined row's `prefix`ed columns (prefixedColumns); undefined when no row was joined (its id is null). */
  fromPrefixed(row: Record<string, unknown>, prefix: string): Model | undefined;
  /** Each field's column, quoted, to write to; a field not in the table has none. */
  writable: ReadonlyMap<string, Prisma.Sql>;
}

function modelTable<Model>(name: string, idType: "uuid" | "text", fieldEnum: Record<string, string>): ModelTable<Model> {
  const fields = Object.keys(fieldEnum) as (keyof Model & string)[];
  const columnList = fields.map((field) => `"${columnOf(field)}" AS "${field}"`).join(", ");
  const timestamps = fields.filter(isTimestamp);
  const fromRow = (row: Record<string, unknown>): Model => {
    const model = { ...row };
    for (const field of timestamps) {
      const value = model[field];
      if (value !== null && value !== undefined && !(value instanceof Date)) model[field] = new Date(value as string);
    }
    if (typeof model.metadata === "string") model.metadata = JSON.parse(model.metadata) as unknown;
    return model as Model;
  };
  return {
    name,
    table: Prisma.raw(name),
    idType,
    fields,
    columns: Prisma.raw(columnList),
    columnList,
    fromRow,
    prefixedColumns: (alias, prefix) => fields.map((field) => `${alias}."${columnOf(field)}" AS "${prefix}${field}"`).join(", "),
    writable: new Map(fields.map((field) => [field, Prisma.raw(`"${columnOf(field)}"`)])),
    fromPrefixed(row, prefix) {
      if (row[`${prefix}id`] === null || row[`${prefix}id`] === undefined) return undefined;
      const own: Record<string, unknown> = {};
      for (const field of fields) own[field] = row[`${prefix}${field}`];
      return fromRow(own);
    },
  };
}

export const paymentsTable = modelTable<PaymentModel>("payments", "uuid", Prisma.PaymentScalarFieldEnum);
export const payoutsTable = modelTable<PayoutModel>("payouts", "uuid", Prisma.PayoutScalarFieldEnum);
export const refundsTable = modelTable<RefundModel>("refunds", "uuid", Prisma.RefundScalarFieldEnum);
export const intentsTable = modelTable<PaymentIntentModel>("payment_intents", "text", Prisma.PaymentIntentScalarFieldEnum);

/** A payment's columns (`p.`) and its refunds' (`r.`) for a join read by `paymentsWithRefundsOf`. */
export const withRefundsColumns = Prisma.raw(`${paymentsTable.prefixedColumns("p", "p.")}, ${refundsTable.prefixedColumns("r", "r.")}`);

/** The order `paymentsWithRefundsOf` expects: payments oldest first, each one's refunds newest first. */
export const withRefundsOrder = Prisma.raw("p.created_at, p.id, r.created_at DESC, r.id DESC");

/** The payments (`p.`) of a join with their refunds (`r.`), in the rows' order; rows without a payment are skipped. */
export function paymentsWithRefundsOf(rows: readonly Record<string, unknown>[]): (PaymentModel & { refunds: RefundModel[] })[] {
  const byId = new Map<string, PaymentModel & { refunds: RefundModel[] }>();
  for (const row of rows) {
    const payment = paymentsTable.fromPrefixed(row, "p.");
    if (!payment) continue;
    let listed = byId.get(payment.id);
    if (!listed) byId.set(payment.id, (listed = { ...payment, refunds: [] }));
    const refund = refundsTable.fromPrefixed(row, "r.");
    if (refund) listed.refunds.push(refund);
  }
  return [...byId.values()];
}

/** Columns to write, by field name; a field left out keeps its value. */
export type RowChanges<Model> = { [Field in keyof Model]?: Model[Field] };

function assignments<Model>(table: ModelTable<Model>, changes: RowChanges<Model>): Prisma.Sql[] {
  return Object.entries(changes)
    .filter(([, value]) => value !== undefined)
    .map(([field, value]) => {
      const column = table.writable.get(field);
      if (!column) throw new Error(`${table.name} has no field ${field}`);
      return Prisma.sql`${column} = ${value}`;
    });
}

/** The row as `updateRow` leaves it: `changes` over `row`, a field left out (or undefined) keeping its value. */
export function changedRow<Model extends object>(row: Model, changes: RowChanges<Model>): Model {
  const next = { ...row };
  for (const [field, value] of Object.entries(changes)) if (value !== undefined) (next as Record<string, unknown>)[field] = value;
  return next;
}

/**
 * Writes `changes` to the row with this id (one the caller holds locked); the row as it now is.
 * `alsoWrite`: more writes of the same statement, as common table expressions (`name AS (…)`) — the
 * event that reports the change, say — saving their round trips.
 */
export async function updateRow<Model>(tx: RawSql, table: ModelTable<Model>, id: string, changes: RowChanges<Model>, alsoWrite?: Prisma.Sql): Promise<Model> {
  const row = await updateRowIf(tx, table, id, changes, { alsoWrite });
  if (!row) throw new Error(`${table.name} has no row ${id} to update`);
  return row;
}

export interface ConditionalWrites {
  /**
   * A data-modifying statement with RETURNING, run first in the same statement: the row is updated
   * only if it returned a row — recording a stored callback's outcome while it is still unhandled, say,
   * without a round trip of its own. When it returns none, writes of `alsoWrite` that do not read
   * `updated` still happen: the caller rolls its transaction back.
   */
  onlyIf?: Prisma.Sql | undefined;
  alsoWrite?: Prisma.Sql | undefined;
}

/** `updateRow` with a condition written in the same statement: undefined when `onlyIf` returned no row (nothing was updated). */
export async function updateRowIf<Model>(tx: RawSql, table: ModelTable<Model>, id: string, changes: RowChanges<Model>, writes: ConditionalWrites): Promise<Model | undefined> {
  const rows = await tx.$queryRaw<Record<string, unknown>[]>(updateStatement(table, id, changes, writes, table.columns));
  return rows[0] ? table.fromRow(rows[0]) : undefined;
}

/**
 * `updateRowIf` for a caller that holds the row as it was before the update (read under its lock, or
 * guarded by `onlyIf` as read): the row as it now is, `changedRow(row, changes)`, without reading the
 * whole row back (a settlement's statement, once per callback: docs/performance.md, "Callback ingestion").
 */
export async function updateHeldRowIf<Model extends { id: string }>(tx: RawSql, table: ModelTable<Model>, row: Model, changes: RowChanges<Model>, writes: ConditionalWrites): Promise<Model | undefined> {
  const written = await tx.$queryRaw<unknown[]>(updateStatement(table, row.id, changes, writes, Prisma.sql`1 AS written`));
  return written.length > 0 ? changedRow(row, changes) : undefined;
}

function updateStatement<Model>(table: ModelTable<Model>, id: string, changes: RowChanges<Model>, { onlyIf, alsoWrite }: ConditionalWrites, returning: Prisma.Sql): Prisma.Sql {
  const set = assignments(table, changes);
  if (set.length === 0) throw new Error(`nothing to write to ${table.name}`);
  // Prisma's @updatedAt is applied by its client, not by the database: raw SQL writes it, from the caller's clock.
  if (table.fields.includes("updatedAt" as keyof Model & string) && (changes as { updatedAt?: unknown }).updatedAt === undefined) {
    throw new Error(`an update of ${table.name} must write updatedAt`);
  }
  return Prisma.sql`
    WITH ${onlyIf ? Prisma.sql`precondition AS (${onlyIf}), ` : Prisma.empty}updated AS (
      UPDATE ${table.table} SET ${Prisma.join(set)}
       WHERE id = ${id}::${Prisma.raw(table.idType)}${onlyIf ? Prisma.sql` AND EXISTS (SELECT 1 FROM precondition)` : Prisma.empty}
      RETURNING ${returning}
    )${alsoWrite ? Prisma.sql`, ${alsoWrite}` : Prisma.empty}
    SELECT * FROM updated`;
}

/** Inserts one row (columns the database defaults may be left out); the row as stored. */
export async function insertRow<Model>(tx: RawSql, table: ModelTable<Model>, values: RowChanges<Model>): Promise<Model> {
  const entries = Object.entries(values).filter(([, value]) => value !== undefined);
  const names = Prisma.raw(entries.map(([field]) => `"${columnOf(field)}"`).join(", "));
  const rows = await tx.$queryRaw<Record<string, unknown>[]>`
    INSERT INTO ${table.table} (${names}) VALUES (${Prisma.join(entries.map(([, value]) => value))}) RETURNING ${table.columns}`;
  return table.fromRow(rows[0]!);
}
