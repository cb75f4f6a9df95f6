/**
 * Every string a procedure takes refuses control characters (docs/errors.md#input-rules),
 * so none can reach the database. The walk covers each procedure of appRouter, so a procedure or field
 * added later without `oneLineString` / `freeTextString` (shared/fields.ts) fails here.
 */
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { appRouter } from "../../src/router.js";
import { freeTextString, oneLineString } from "../../src/shared/fields.js";

type Schema = z.core.$ZodType;

/** Each string schema reachable from `schema`, with the path of the field it reads. */
function stringSchemas(schema: Schema, path: string, found: { path: string; schema: Schema }[] = []) {
  const def = schema._zod.def as unknown as Record<string, unknown> & { type: string };
  const visit = (child: unknown, childPath = path) => {
    if (child) stringSchemas(child as Schema, childPath, found);
  };
  switch (def.type) {
    case "string":
      found.push({ path, schema });
      break;
    case "object":
      for (const [key, child] of Object.entries(def.shape as Record<string, Schema>)) visit(child, path ? `${path}.${key}` : key);
      break;
    case "array":
      visit(def.element, `${path}[]`);
      break;
    case "record":
      visit(def.keyType, `${path}{key}`);
      visit(def.valueType, `${path}{}`);
      break;
    case "union":
      for (const option of def.options as Schema[]) visit(option);
      break;
    case "intersection":
      visit(def.left);
      visit(def.right);
      break;
    case "pipe":
      // The out side sees what the in side let through, unless the in side is a preprocess step.
      visit((def.in as Schema)._zod.def.type === "transform" ? def.out : def.in);
      break;
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "nonoptional":
    case "readonly":
    case "catch":
      visit(def.innerType);
      break;
    default:
      // enums, literals, numbers, booleans and transforms take no free-form string.
      break;
  }
  return found;
}

const procedures = Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: { inputs: Schema[] } }>);
const inputStrings = procedures.flatMap(([name, procedure]) =>
  procedure._def.inputs.flatMap((input) => stringSchemas(input, "").map((field) => ({ ...field, name: `${name}: ${field.path}` }))),
);
const controlCharacters = [...Array.from({ length: 0x20 }, (_, code) => String.fromCharCode(code)), "\u007f"];

describe("string inputs", () => {
  it("the walk finds the string fields of the procedures", () => {
    const names = inputStrings.map((field) => field.name);
    expect(names).toContain("auth.register: name");
    expect(names).toContain("addresses.create: landmark");
    expect(names).toContain("payments.list: cursor");
    expect(inputStrings.length).toBeGreaterThan(30);
  });

  it.each(inputStrings.map((field) => [field.name, field.schema] as const))("%s refuses control characters", (_name, schema) => {
    // The URL probe: a URL parser takes a control character in a path and would let it through.
    const probes = (char: string) => [`a${char}b`, `https://example.com/a${char}b`];
    const passed = controlCharacters.filter((char) => probes(char).some((probe) => (schema as z.ZodType).safeParse(probe).success));
    expect(passed.filter((char) => char !== "\t" && char !== "\n")).toEqual([]);
  });

  it("only free text takes tab and newline", () => {
    const takesTab = inputStrings.filter((field) => (field.schema as z.ZodType).safeParse("a\tb").success).map((field) => field.name);
    expect(takesTab.sort()).toEqual(["addresses.create: landmark", "addresses.update: landmark"]);
  });

  it("the two builders differ only in tab and newline", () => {
    expect(oneLineString().safeParse("a\tb").success).toBe(false);
    expect(freeTextString().safeParse("a\tb\nc").success).toBe(true);
    expect(freeTextString().safeParse("a\rb").success).toBe(false);
    expect(freeTextString().safeParse("a\u0000b").success).toBe(false);
    expect(oneLineString().safeParse("Wanjiku Kamau – Nairobi").success).toBe(true);
  });
});
