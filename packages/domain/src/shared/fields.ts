import { normaliseKenyanPhone } from "@mteja/daraja";
import { z } from "zod";
import type { CustomRuleKey } from "./i18n/validation-details.js";

type StringParams = Parameters<typeof z.string>[0];

const controlCharacters = /[\u0000-\u001f\u007f]/;
const controlCharactersButTabAndNewline = /[\u0000-\u0008\u000b-\u001f\u007f]/;
// The same rules as JSON Schema patterns, so a client generated from the document refuses what the service refuses.
const noControlCharacters = "^[^\\u0000-\\u001f\\u007f]*$";
const noControlCharactersButTabAndNewline = "^[^\\u0000-\\u0008\\u000b-\\u001f\\u007f]*$";

/**
 * A refinement's rule in the document. Under `allOf`, not `pattern`: metadata passes to every schema derived
 * from this one, and a field's own `.regex()` pattern must stay beside it, not be replaced. Metadata set
 * again further down a field's chain replaces its `allOf`: name every rule again there.
 */
function documentedAs(...patterns: string[]) {
  return { allOf: patterns.map((pattern) => ({ pattern })) };
}

/**
 * Where every string input starts (docs/errors.md#input-rules): a control character (U+0000-U+001F,
 * U+007F) is a 422 naming the field, checked before trimming so nothing is silently dropped, and never
 * reaches the database (PostgreSQL refuses NUL in text and jsonb).
 * `test/input-strings.test.ts` fails if a procedure takes a string that does not.
 */
export function oneLineString(params?: StringParams) {
  return z
    .string(params)
    .refine((value) => !controlCharacters.test(value), {
      message: "must not contain control characters",
      abort: true,
      params: { message: "validation.control_characters" satisfies CustomRuleKey },
    })
    .meta(documentedAs(noControlCharacters));
}

/** Free text a person types on several lines (a landmark): tab and newline pass, other control characters do not. */
export function freeTextString(params?: StringParams) {
  return z
    .string(params)
    .refine((value) => !controlCharactersButTabAndNewline.test(value), {
      message: "must not contain control characters other than tab and newline",
      abort: true,
      params: { message: "validation.control_characters" satisfies CustomRuleKey },
    })
    .meta(documentedAs(noControlCharactersButTabAndNewline));
}

/**
 * Field rules shared by several operations (docs/errors.md#input-rules: strings trimmed, emails lower-cased).
 * The document says `format: email` and gives zod's email rule, which the pipe hides from it, as a pattern:
 * `format: email` alone would let through addresses the server refuses (`a!b@shop.ke`).
 */
export const emailField = oneLineString({ error: "email is required" })
  .trim()
  .toLowerCase()
  .max(254, "email is too long")
  .pipe(z.email("email is not a valid email address"))
  .meta({ format: "email", ...documentedAs(noControlCharacters, z.regexes.email.source) });

/** Passwords are not trimmed: every character counts. The upper bound keeps hashing bounded. */
export const newPasswordField = oneLineString({ error: "password is required" })
  .min(8, "password must be at least 8 characters")
  .max(256, "password must be at most 256 characters");

export const passwordField = oneLineString({ error: "password is required" }).min(1, "password is required").max(1024);

export const personNameField = oneLineString({ error: "name is required" })
  .trim()
  .min(1, "name is required")
  .max(100, "name must be at most 100 characters");

/**
 * What String.prototype.trim and normaliseKenyanPhone's `\s` take as white space, less the control
 * characters every string refuses: the white space a phone may carry around and between its digits.
 */
const phoneSpaces = "\\u0020\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff";
const phoneSeparator = `[${phoneSpaces}-]*`;
/**
 * kenyanPhoneField's rule as one JSON Schema pattern, so a generated client takes exactly the phones the
 * server takes (test/shared/documented-formats.test.ts): at most 20 characters once trimmed (the look-ahead),
 * then `+254`, `254` or `0`, then 7 or 1 and eight digits, white space and dashes anywhere between.
 */
export const kenyanPhonePattern =
  `^(?=[${phoneSpaces}]*[0-9+-](?:[0-9+${phoneSpaces}-]{0,18}[0-9+-])?[${phoneSpaces}]*$)` +
  `${phoneSeparator}(?:(?:\\+${phoneSeparator})?2${phoneSeparator}5${phoneSeparator}4|0)${phoneSeparator}[17]` +
  `(?:${phoneSeparator}[0-9]){8}${phoneSeparator}$`;

/**
 * A Kenyan mobile number, normalised to 2547…/2541…. Its length is checked in the transform, after
 * trimming, not with `.max()`: the document's `maxLength` would count the untrimmed input, and the
 * pattern already says it.
 */
export const kenyanPhoneField = oneLineString({ error: "phone is required" })
  .trim()
  .transform((value, ctx) => {
    if (value.length > 20) {
      ctx.addIssue({ code: "too_big", origin: "string", maximum: 20, inclusive: true, input: value, message: "phone is too long" });
      return z.NEVER;
    }
    const phone = normaliseKenyanPhone(value);
    if (!phone) {
      ctx.addIssue({
        code: "custom",
        message: "phone must be a Kenyan mobile number (07…, 01…, 2547…, 2541… or +254…)",
        params: { message: "validation.phone" satisfies CustomRuleKey },
      });
      return z.NEVER;
    }
    return phone;
  })
  .meta({ ...documentedAs(noControlCharacters, kenyanPhonePattern) });

const calendarDay = "[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])";
const clockTime = "(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\\.[0-9]{1,9})?(?:Z|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])";

/**
 * How the document describes a date field whose rule is a refinement: a format and a pattern of
 * RFC 3339's form. The server may take more (surrounding white space, an offset without its colon, a
 * time without seconds); a client held to the document never sends what the server refuses
 * (test/shared/documented-formats.test.ts). Metadata of the field itself (before `.optional()`):
 * a query parameter's schema is its field's, without the optional wrapper's.
 */
export const documentedDates = {
  /** A calendar day, YYYY-MM-DD. */
  day: { format: "date", pattern: `^${calendarDay}$` },
  /** An instant: a date-time with its zone. */
  instant: { format: "date-time", pattern: `^${calendarDay}T${clockTime}$` },
  /** A day, or an instant. */
  dayOrInstant: { anyOf: [{ format: "date" }, { format: "date-time" }], pattern: `^${calendarDay}(?:T${clockTime})?$` },
} as const;

/** The input of an operation that takes none: an absent body or `{}` (other fields are dropped). */
export const noInput = z.object({}).strip().optional();

export const tenantHeaders = z.object({
  "x-tenant-id": z.string().describe("The shop (tenant) id, e.g. `default`."),
});

/**
 * trpc-to-openapi switches zod coercion on for every number and boolean field of a REST input (and,
 * since it flips the shared schema objects, for tRPC too), so `"false"` would read as true and `null`
 * as 0. A pipe keeps a field out of its reach: JSON bodies keep strict types. Use it on every number
 * or boolean field of a body (never needed for query-string inputs, where coercion is wanted).
 */
export function uncoerced<T extends z.ZodType>(schema: T) {
  return schema.transform((value) => value);
}

/** `?limit=&cursor=` of a list (1–100, default 20); `limit` is left coercible: it arrives as a query string. */
export const pageFields = {
  limit: z.number().int().min(1).max(100).default(20),
  cursor: oneLineString().max(200).optional().describe("next_cursor of the previous page."),
};
