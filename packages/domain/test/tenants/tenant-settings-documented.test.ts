/**
 * A shop's settings are documented once, in docs/tenants.md#settings: a row for every field the schema
 * keeps, each naming the fields nested in it, and no row for a field it drops. The README and
 * docs/configuration.md point there instead of keeping copies (copies drifted: each lacked a field).
 */
import { readFileSync } from "node:fs";
import { markdownTables } from "@mteja/test-support/markdown-tables";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { tenantSettingsSchema } from "../../src/shared/tenant-settings.js";

const root = new URL("../../../../", import.meta.url);
const read = (file: string) => readFileSync(new URL(file, root), "utf8");

/** The object a field holds, under its optional and nullable wrappers; undefined for a plain value. */
function objectOf(schema: z.ZodType): z.ZodObject | undefined {
  if (schema instanceof z.ZodObject) return schema;
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable) return objectOf(schema.unwrap() as z.ZodType);
  return undefined;
}

/** Every field name nested anywhere under an object's field (momo: shortcode, …, b2c, enabled, …). */
function nestedNames(object: z.ZodObject): string[] {
  return Object.entries(object.shape).flatMap(([name, field]) => {
    const inner = objectOf(field as z.ZodType);
    return [name, ...(inner ? nestedNames(inner) : [])];
  });
}

/** Rows of the first table under "## Per-shop settings" in docs/tenants.md, by the field of their first cell. */
function rowsOfTheTable(): Map<string, string> {
  const section = read("docs/tenants.md").split("## Per-shop settings")[1] ?? "";
  const rows = markdownTables(section)[0]?.rows ?? [];
  const fieldOf = (row: string) => /^\| `([A-Za-z]+)` \|/.exec(row)?.[1];
  return new Map(rows.flatMap((row) => (fieldOf(row) ? [[fieldOf(row)!, row] as const] : [])));
}

describe("the per-shop settings' documentation", () => {
  const fields = tenantSettingsSchema.shape;

  it("docs/tenants.md has a row for every field a shop may set, and none for a field that is dropped", () => {
    const rows = rowsOfTheTable();
    expect(Object.keys(fields).length).toBeGreaterThan(8);
    expect(Object.keys(fields).filter((name) => !rows.has(name))).toEqual([]);
    expect([...rows.keys()].filter((name) => !(name in fields))).toEqual([]);
  });

  it("each row names every field nested in its object", () => {
    const rows = rowsOfTheTable();
    const unnamed = Object.entries(fields).flatMap(([name, field]) => {
      const inner = objectOf(field as z.ZodType);
      const row = rows.get(name) ?? "";
      const named = (nested: string) => new RegExp(`\\b${nested}\\b`).test(row);
      return inner ? nestedNames(inner).filter((nested) => !named(nested)).map((nested) => `${name}.${nested}`) : [];
    });
    expect(unnamed).toEqual([]);
  });

  it("the README and docs/configuration.md keep no copy of the table: they link to it", () => {
    for (const file of ["README.md", "docs/configuration.md"]) {
      const text = read(file);
      expect(text, file).not.toMatch(/^\| `displayName` \|/m);
      expect(text, file).toMatch(/tenants\.md#settings\)/);
    }
  });
});
