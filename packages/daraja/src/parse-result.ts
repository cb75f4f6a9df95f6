import { z } from "zod";

export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: string };

export function parsed<T>(value: T): ParseResult<T> {
  return { ok: true, value };
}

export function rejected<T>(error: z.ZodError | string): ParseResult<T> {
  return { ok: false, error: typeof error === "string" ? error : z.prettifyError(error) };
}

/** ResultCode arrives as a number in callbacks and as a string elsewhere. */
export const resultCodeSchema = z
  .union([z.number(), z.string()])
  .transform((code) => String(code).trim())
  .refine((code) => code !== "", "ResultCode is empty");

export const idSchema = z.union([z.string(), z.number()]).transform((id) => String(id).trim());

/** A `{Name|Key, Value?}` list that Daraja sends as an array, or as a bare object when it has one entry. */
export function oneOrMany<T extends z.ZodType>(item: T) {
  return z.union([z.array(item), item]).transform((value) => (Array.isArray(value) ? value : [value]) as z.output<T>[]);
}

export type ParameterValue = string | number | null;

export const parameterValueSchema = z
  .union([z.string(), z.number(), z.boolean(), z.null()])
  .optional()
  .transform((value): ParameterValue => (value === undefined ? null : typeof value === "boolean" ? String(value) : value));

export function numberFrom(value: ParameterValue | undefined): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  if (typeof value === "string" && /^\s*-?\d+(\.\d+)?\s*$/.test(value)) return Number(value);
  return undefined;
}

export function stringFrom(value: ParameterValue | undefined): string | undefined {
  if (value === null || value === undefined) return undefined;
  const text = typeof value === "number" ? String(value) : value.trim();
  return text === "" ? undefined : text;
}
