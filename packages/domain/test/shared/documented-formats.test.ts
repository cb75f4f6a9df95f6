/**
 * The document's rules for a field are the server's: a string the field's JSON Schema (as the OpenAPI
 * document gets it, zod's input side) lets through, the server takes, so a client generated from the
 * document refuses what the server refuses. For a Kenyan phone the two are exactly the same set (a
 * table, every character of the Basic Multilingual Plane in every position, and generated strings); for
 * emails and dates the document may be stricter than the server (it describes the canonical form), never looser.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { pullNowInput } from "../../src/payments/pull/schemas.js";
import { listPaymentsInput } from "../../src/payments/shared/schemas.js";
import { dailyReportInput } from "../../src/reports/schemas.js";
import { emailField, kenyanPhoneField } from "../../src/shared/fields.js";

type Json = Record<string, unknown>;

/** The JSON Schema the document carries for a field (its input side), without `$schema`. */
function documented(schema: z.ZodType): Json {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Json;
  return rest;
}

/** Every `pattern` of a string schema, its `allOf` branches' included (JSON Schema regexes: ECMA-262, `u`). */
function patternsOf(schema: Json): RegExp[] {
  const branches = [schema, ...((schema.allOf as Json[] | undefined) ?? [])];
  return branches.flatMap((branch) => (typeof branch.pattern === "string" ? [new RegExp(branch.pattern, "u")] : []));
}

/** What a JSON Schema validator says of a string, for the keywords these fields use (formats aside). */
function documentAccepts(schema: Json, value: string): boolean {
  const length = [...value].length; // JSON Schema counts code points
  if (typeof schema.maxLength === "number" && length > schema.maxLength) return false;
  if (typeof schema.minLength === "number" && length < schema.minLength) return false;
  return patternsOf(schema).every((pattern) => pattern.test(value));
}

const serverAccepts = (field: z.ZodType, value: string) => field.safeParse(value).success;

describe("a Kenyan phone in the document", () => {
  const schema = documented(kenyanPhoneField);
  const same = (value: string) => expect([value, documentAccepts(schema, value)]).toEqual([value, serverAccepts(kenyanPhoneField, value)]);

  it("carries a pattern and no raw maxLength (the server counts 20 characters after trimming)", () => {
    expect(schema.type).toBe("string");
    expect(schema.maxLength).toBeUndefined();
    expect(patternsOf(schema).length).toBeGreaterThanOrEqual(1);
  });

  it.each([
    ["0712345678", true],
    ["0112345678", true],
    ["254712345678", true],
    ["254112345678", true],
    ["+254712345678", true],
    ["+254 712 345 678", true],
    ["+254-712-345-678", true],
    ["0712-345-678", true],
    ["  0712 345678 ", true],
    ["\u00a00712345678\u3000", true],
    ["+ 2 5 4 7 1 2 3 4 5 6 7 8", false], // 25 characters: too long
    ["+254 71 2 3 4 5 6 78", true], // 20 characters
    ["0-7-1-2-3-4-5-6-7-8-", true], // 20
    ["0-7-1-2-3-4-5-6-7-8--", false], // 21
    [`${" ".repeat(30)}0712345678${" ".repeat(30)}`, true], // trimmed first
    ["-0712345678", true],
    ["", false],
    ["712345678", false],
    ["071234567", false],
    ["07123456789", false],
    ["0212345678", false],
    ["255712345678", false],
    ["+2540712345678", false],
    ["2547123456789", false],
    ["07l2345678", false],
    ["+1 712 345 678", false],
    ["0712\t345678", false], // a control character
    ["0712345678\n", false],
    ["07123+45678", false],
    ["++254712345678", false],
    ["0712\u200b345678", false], // a zero-width space is not whitespace
    ["٠٧١٢٣٤٥٦٧٨", false], // Arabic-Indic digits
  ])("%j: the server %s, the document the same", (value, accepted) => {
    expect(serverAccepts(kenyanPhoneField, value)).toBe(accepted);
    same(value);
  });

  it("agrees on every character of the Basic Multilingual Plane, before, inside and after a number", () => {
    for (let code = 0; code <= 0xffff; code += 1) {
      const char = String.fromCharCode(code);
      for (const value of [`${char}0712345678`, `0712${char}345678`, `+254712345678${char}`, `2${char}54712345678`]) {
        if (documentAccepts(schema, value) !== serverAccepts(kenyanPhoneField, value)) same(value);
      }
    }
  });

  it("agrees on generated strings: numbers with separators and padding, and anything else", () => {
    const separator = fc.constantFrom(" ", "-", "\u00a0", "\u2009", "\u3000", "\t", "\u200b", "+", "");
    const digits = (n: number) => fc.array(fc.constantFrom(..."0123456789"), { minLength: n, maxLength: n }).map((d) => d.join(""));
    const prefix = fc.constantFrom("+254", "254", "0", "+2540", "255", "", "+", "07", "2547");
    const spaced = fc
      .tuple(prefix, fc.constantFrom("7", "1", "2", "0"), digits(8), fc.integer({ min: 0, max: 1 }))
      .map(([p, first, rest, extra]) => `${p}${first}${rest}${extra ? "5" : ""}`);
    const withSeparators = fc
      .tuple(spaced, fc.array(fc.tuple(fc.nat(), separator), { maxLength: 12 }), fc.stringMatching(/^[ \u00a0]{0,4}$/), fc.stringMatching(/^[ \u3000]{0,4}$/))
      .map(([number, inserts, before, after]) => {
        const chars = [...number];
        for (const [at, sep] of inserts) chars.splice(at % (chars.length + 1), 0, sep);
        return `${before}${chars.join("")}${after}`;
      });
    const anything = fc.oneof(fc.string({ maxLength: 25 }), fc.string({ unit: "binary", maxLength: 25 }), fc.stringMatching(/^[-+ 0-9]{8,24}$/));
    fc.assert(
      fc.property(fc.oneof(withSeparators, anything), (value) => documentAccepts(schema, value) === serverAccepts(kenyanPhoneField, value)),
      { numRuns: 20_000, seed: 20_261_216 },
    );
  });
});

describe("an email in the document", () => {
  const schema = documented(emailField);

  it("says format email, with the server's own rule as its pattern", () => {
    expect(schema).toMatchObject({ type: "string", format: "email", maxLength: 254 });
    expect(patternsOf(schema).map(String)).toContain(String(new RegExp(z.regexes.email.source, "u")));
  });

  it("lets through nothing the server refuses", () => {
    const local = fc.stringMatching(/^[A-Za-z0-9_'+.!#$%&*/=?^`{|}~-]{1,12}$/);
    const domain = fc.stringMatching(/^[A-Za-z0-9-]{1,8}(\.[A-Za-z0-9-]{1,8}){0,2}\.[A-Za-z0-9]{1,4}$/);
    const email = fc.oneof(fc.tuple(local, domain).map(([l, d]) => `${l}@${d}`), fc.string({ maxLength: 30 }));
    fc.assert(
      fc.property(email, (value) => !documentAccepts(schema, value) || serverAccepts(emailField, value)),
      { numRuns: 5_000, seed: 20_261_216 },
    );
    expect(documentAccepts(schema, "wanjiku@example.com")).toBe(true);
    expect(documentAccepts(schema, "a!b@example.com")).toBe(false); // refused by the server, and so by the document
  });
});

/** A field of an input object (under its `.default()`). */
function fieldOf(input: z.ZodType, name: string): z.ZodType {
  const object = (input as unknown as z.ZodDefault<z.ZodObject>).removeDefault();
  return object.shape[name] as z.ZodType;
}

/** RFC 3339's full-date, as JSON Schema validators check `format: date`. */
function isCalendarDay(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return false;
  const [year, month, day] = match.slice(1).map(Number) as [number, number, number];
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  return days !== undefined && day >= 1 && day <= days;
}

const two = (max: number) => fc.integer({ min: 0, max }).map((n) => String(n).padStart(2, "0"));
const year = fc.integer({ min: 0, max: 9999 }).map((n) => String(n).padStart(4, "0"));
const day = fc.tuple(year, two(13), two(32)).map(([y, m, d]) => `${y}-${m}-${d}`);
const fraction = fc.option(fc.stringMatching(/^\.[0-9]{1,10}$/), { nil: "" });
const zone = fc.oneof(fc.constantFrom("Z", "z", ""), fc.tuple(fc.constantFrom("+", "-"), two(25), fc.constantFrom(":", ""), two(60)).map((parts) => parts.join("")));
const instant = fc
  .tuple(day, fc.constantFrom("T", "t", " "), two(25), two(60), fc.option(two(61), { nil: undefined }), fraction, zone)
  .map(([d, sep, h, m, sec, f, z]) => `${d}${sep}${h}:${m}${sec === undefined ? "" : `:${sec}${f}`}${z}`);
const dateLike = fc.oneof(day, instant, fc.string({ maxLength: 30 }));

describe("dates in the document", () => {
  const reportDay = fieldOf(dailyReportInput, "date");
  const pullFrom = fieldOf(pullNowInput, "from");
  const listFrom = fieldOf(listPaymentsInput, "from");

  it("say their format and a pattern: the report's day, a pull's window, a list's bounds", () => {
    expect(documented(reportDay)).toMatchObject({ type: "string", format: "date", pattern: expect.any(String) });
    expect(documented(pullFrom)).toMatchObject({ type: "string", format: "date-time", pattern: expect.any(String) });
    expect(documented(listFrom)).toMatchObject({ type: "string", anyOf: [{ format: "date" }, { format: "date-time" }], pattern: expect.any(String) });
  });

  it.each([
    [reportDay, "2026-11-24"],
    [reportDay, "2024-02-29"],
    [pullFrom, "2026-12-02T08:00:00+03:00"],
    [pullFrom, "2026-12-02T05:00:00.123Z"],
    [listFrom, "2026-11-25"],
    [listFrom, "2026-11-25T09:30:00Z"],
  ])("the canonical form passes both: %#", (field, value) => {
    expect(documentAccepts(documented(field), value)).toBe(true);
    expect(serverAccepts(field, value)).toBe(true);
  });

  it("a report's day: the pattern and format date together take exactly the days the server takes", () => {
    const schema = documented(reportDay);
    fc.assert(
      fc.property(day, (value) => (documentAccepts(schema, value) && isCalendarDay(value)) === serverAccepts(reportDay, value)),
      { numRuns: 5_000, seed: 20_261_216 },
    );
  });

  it("the patterns alone (a tool that skips formats) let through nothing the server refuses", () => {
    for (const field of [reportDay, pullFrom, listFrom]) {
      const schema = documented(field);
      // A day the calendar lacks is the format's to refuse (the server rolls 2026-02-30 over for a list or a pull).
      const refusedByServer = (value: string) => !serverAccepts(field, value) && (field !== reportDay || isCalendarDay(value));
      fc.assert(fc.property(dateLike, (value) => !(documentAccepts(schema, value) && refusedByServer(value))), { numRuns: 5_000, seed: 20_261_216 });
    }
  });
});
