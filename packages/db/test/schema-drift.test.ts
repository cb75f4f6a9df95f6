/**
 * Fails when the database that prisma/migrations produce drifts from prisma/schema.prisma: tables,
 * columns (type, nullability, default), primary keys, unique and plain indexes, foreign keys. Runs on
 * the embedded database always and on PostgreSQL when reachable (mandatory under CI=true).
 * Prisma's own `migrate diff` cannot run here (it needs a native engine), so the comparison is made
 * from Prisma's DMMF (from its published WebAssembly schema engine) against the catalog.
 */
import { get_dmmf } from "@prisma/prisma-schema-wasm";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { openDatabase, type Database } from "../src/index.js";
import { databaseTargets, plainSqlOf } from "./support/databases.js";

const schemaPath = new URL("../../../prisma/schema.prisma", import.meta.url);

/** Constraints Prisma's schema language cannot express; they must exist, and nothing else extra may. */
const migrationOnlyIndexes = [
  "addresses_one_default_per_user",
  "momo_callbacks_held_by_kind",
  "payment_intents_open_reference_per_mode",
  "payment_reversals_one_open_per_payment",
  "payments_one_success_per_intent",
  "refresh_tokens_one_current_per_session",
  "refunds_one_standing_reversal_per_payment",
  "users_one_verified_phone_per_tenant",
  "users_guests_by_created_at",
  "signing_keys_one_current_per_algorithm",
  "webhook_deliveries_pending_by_endpoint",
];

interface DmmfField {
  name: string;
  dbName?: string | null;
  kind: string;
  type: string;
  isRequired: boolean;
  hasDefaultValue: boolean;
  nativeType?: [string, string[]] | null;
  default?: { name?: string } | unknown;
  relationFromFields?: string[];
  relationToFields?: string[];
  relationOnDelete?: string;
}
interface DmmfModel {
  name: string;
  dbName?: string | null;
  fields: DmmfField[];
}
interface DmmfIndex {
  model: string;
  type: "id" | "unique" | "normal" | "fulltext";
  fields: { name: string }[];
}

function expectedSchema() {
  const dmmf = JSON.parse(get_dmmf(JSON.stringify({ prismaSchema: [["schema.prisma", readFileSync(schemaPath, "utf8")]] }))) as {
    datamodel: { models: DmmfModel[]; indexes: DmmfIndex[] };
  };
  const models = new Map(dmmf.datamodel.models.map((m) => [m.name, m]));
  const table = (m: DmmfModel) => m.dbName ?? m.name;
  const column = (m: DmmfModel, field: string) => {
    const f = m.fields.find((x) => x.name === field);
    return f?.dbName ?? field;
  };
  const columns: string[] = [];
  const indexes: string[] = [];
  const foreignKeys: string[] = [];
  for (const m of dmmf.datamodel.models) {
    for (const f of m.fields.filter((x) => x.kind === "scalar")) {
      const clientSideDefault = typeof f.default === "object" && f.default !== null && (f.default as { name?: string }).name === "uuid";
      const hasDbDefault = f.hasDefaultValue && !clientSideDefault;
      columns.push(`${table(m)}.${f.dbName ?? f.name} ${pgType(f)} ${f.isRequired ? "not null" : "null"} ${hasDbDefault ? "default" : "no default"}`);
    }
    for (const f of m.fields.filter((x) => x.kind === "object" && x.relationFromFields?.length)) {
      const target = models.get(f.type)!;
      const onDelete = (f.relationOnDelete ?? (f.isRequired ? "Restrict" : "SetNull")).toLowerCase();
      foreignKeys.push(
        `${table(m)}(${f.relationFromFields!.map((x) => column(m, x)).join(",")}) -> ${table(target)}(${f.relationToFields!
          .map((x) => column(target, x))
          .join(",")}) on delete ${onDelete}`,
      );
    }
  }
  for (const index of dmmf.datamodel.indexes) {
    const m = models.get(index.model)!;
    const kind = index.type === "id" ? "primary" : index.type === "unique" ? "unique" : "index";
    indexes.push(`${table(m)} ${kind} (${index.fields.map((f) => column(m, f.name)).join(",")})`);
  }
  return { columns: columns.sort(), indexes: indexes.sort(), foreignKeys: foreignKeys.sort() };
}

function pgType(f: DmmfField): string {
  const native = f.nativeType?.[0];
  switch (f.type) {
    case "String":
      return native === "Uuid" ? "uuid" : "text";
    case "Boolean":
      return "boolean";
    case "Int":
      return "integer";
    case "BigInt":
      return "bigint";
    case "Float":
      return "double precision";
    case "Json":
      return "jsonb";
    case "DateTime":
      return native === "Timestamptz" ? `timestamp with time zone(${f.nativeType?.[1][0] ?? 6})` : "timestamp without time zone(3)";
    default:
      return `unsupported ${f.type}`;
  }
}

const onDeleteCodes: Record<string, string> = { a: "noaction", r: "restrict", c: "cascade", n: "setnull", d: "setdefault" };

async function actualSchema(db: Database) {
  const columns = (
    await plainSqlOf(db).sql.query(`
      SELECT table_name, column_name, data_type, is_nullable, column_default, datetime_precision
        FROM information_schema.columns
       WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'`)
  ).map((c) => {
    const type = c.data_type === "timestamp with time zone" || c.data_type === "timestamp without time zone" ? `${c.data_type}(${c.datetime_precision})` : c.data_type;
    return `${c.table_name}.${c.column_name} ${type} ${c.is_nullable === "NO" ? "not null" : "null"} ${c.column_default === null ? "no default" : "default"}`;
  });
  const indexRows = await plainSqlOf(db).sql.query(`
    SELECT t.relname AS table_name, i.relname AS index_name, ix.indisprimary AS is_primary, ix.indisunique AS is_unique,
           ix.indpred IS NOT NULL AS is_partial,
           (SELECT string_agg(a.attname, ',' ORDER BY k.ord)
              FROM unnest(ix.indkey) WITH ORDINALITY AS k(attnum, ord)
              JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum) AS columns
      FROM pg_index ix
      JOIN pg_class i ON i.oid = ix.indexrelid
      JOIN pg_class t ON t.oid = ix.indrelid
      JOIN pg_namespace n ON n.oid = t.relnamespace
     WHERE n.nspname = 'public' AND t.relname <> '_prisma_migrations'`);
  const partial = indexRows.filter((r) => r.is_partial).map((r) => String(r.index_name)).sort();
  const indexes = indexRows
    .filter((r) => !r.is_partial)
    .map((r) => `${r.table_name} ${r.is_primary ? "primary" : r.is_unique ? "unique" : "index"} (${r.columns})`);
  const foreignKeys = (
    await plainSqlOf(db).sql.query(`
      SELECT c.conrelid::regclass::text AS table_name, c.confrelid::regclass::text AS target, c.confdeltype AS on_delete,
             (SELECT string_agg(a.attname, ',' ORDER BY k.ord) FROM unnest(c.conkey) WITH ORDINALITY k(attnum, ord)
                JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum) AS columns,
             (SELECT string_agg(a.attname, ',' ORDER BY k.ord) FROM unnest(c.confkey) WITH ORDINALITY k(attnum, ord)
                JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.attnum) AS target_columns
        FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
       WHERE c.contype = 'f' AND n.nspname = 'public'`)
  ).map((r) => `${String(r.table_name).replaceAll('"', "")}(${r.columns}) -> ${String(r.target).replaceAll('"', "")}(${r.target_columns}) on delete ${onDeleteCodes[String(r.on_delete)]}`);
  return { columns: columns.sort(), indexes: indexes.sort(), foreignKeys: foreignKeys.sort(), partial };
}

const targets = await databaseTargets("mteja_drift");

describe.each(targets)("migrated $name database matches prisma/schema.prisma", ({ skip, open }) => {
  it.skipIf(skip)("has the same tables, columns, keys, indexes and foreign keys", async () => {
    const target = await open();
    try {
      const report = await target.db.migrate();
      expect(report.applied.length).toBeGreaterThan(0);
      const expected = expectedSchema();
      const actual = await actualSchema(target.db);
      expect(actual.columns).toEqual(expected.columns);
      expect(actual.indexes).toEqual(expected.indexes);
      expect(actual.foreignKeys).toEqual(expected.foreignKeys);
      expect(actual.partial).toEqual([...migrationOnlyIndexes].sort());
      // A second start applies nothing and keeps the history.
      expect((await target.db.migrate()).applied).toEqual([]);
    } finally {
      await target.drop();
    }
  });
});

describe("the comparison itself", () => {
  it("notices a column the migrations lack", async () => {
    const db = await openDatabase({});
    try {
      await db.migrate();
      await plainSqlOf(db).sql.exec(`ALTER TABLE "users" DROP COLUMN "avatar_url"`);
      const actual = await actualSchema(db);
      expect(actual.columns).not.toEqual(expectedSchema().columns);
    } finally {
      await db.close();
    }
  });
});
