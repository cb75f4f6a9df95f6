/**
 * The raw-SQL rows (src/model-rows.ts) take their columns from Prisma's field lists by one rule: a
 * field's column is its name in snake case, and a field ending in `At` is a timestamp. Checked here
 * against prisma/schema.prisma, so a new field that breaks the rule fails before any query does.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { columnOf, intentsTable, paymentsTable, payoutsTable, refundsTable } from "../src/model-rows.js";

const schema = readFileSync(fileURLToPath(new URL("../../../prisma/schema.prisma", import.meta.url)), "utf8");

/** The scalar fields of a model as the schema declares them: name, column, type. */
function declaredFields(model: string): { field: string; column: string; type: string }[] {
  const body = new RegExp(`^model ${model} \\{([\\s\\S]*?)^\\}`, "m").exec(schema)?.[1];
  if (!body) throw new Error(`no model ${model}`);
  return body
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => /^[a-z]\w*\s+\w/.test(line))
    .map((line) => {
      const [field, type] = line.split(/\s+/) as [string, string];
      return { field, type: type.replace(/[?[\]]/g, ""), column: /@map\("([^"]+)"\)/.exec(line)?.[1] ?? field };
    })
    .filter(({ type }) => ["String", "Int", "Boolean", "DateTime", "Json", "BigInt"].includes(type));
}

describe.each([
  ["Payment", paymentsTable],
  ["Payout", payoutsTable],
  ["Refund", refundsTable],
  ["PaymentIntent", intentsTable],
] as const)("the %s table's raw rows", (model, table) => {
  const declared = declaredFields(model);

  it("reads every scalar field of the schema", () => {
    expect([...table.fields].sort()).toEqual(declared.map(({ field }) => field).sort());
  });

  it("maps each field to its column by the snake-case rule", () => {
    for (const { field, column } of declared) expect([field, columnOf(field)]).toEqual([field, column]);
  });

  it("treats exactly the DateTime fields as timestamps (their names end in At)", () => {
    for (const { field, type } of declared) expect([field, field.endsWith("At")]).toEqual([field, type === "DateTime"]);
  });
});

describe("fromRow", () => {
  it("turns timestamps a driver gave as text into Dates, keeps Dates and nulls, and parses JSON text", () => {
    const at = new Date("2026-11-27T10:00:00.000Z");
    const row = intentsTable.fromRow({ id: "pi_1", createdAt: at.toISOString(), updatedAt: at, expiresAt: null, metadata: '{"order":"42"}' });
    expect(row).toMatchObject({ createdAt: at, updatedAt: at, expiresAt: null, metadata: { order: "42" } });
    expect(row.createdAt).toBeInstanceOf(Date);
  });
});
