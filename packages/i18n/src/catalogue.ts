/**
 * The shape of the message catalogue (docs/i18n.md): every message is one entry `{ en, sw }`, with
 * named placeholders `{name}` (or `{name:money}`, rendered "KSh 1,500") that both languages share.
 */
import { formatMoney } from "./format.js";
import type { Locale } from "./locale.js";

export type Bilingual = { readonly [L in Locale]: string };

/** The placeholder names of a message, read from its text: "at most {max}" → "max". */
export type PlaceholderNames<S extends string> = S extends `${string}{${infer Name}}${infer Rest}`
  ? (Name extends `${infer Base}:${string}` ? Base : Name) | PlaceholderNames<Rest>
  : never;

export type ParamValue = string | number;

const PLACEHOLDER = /\{([a-zA-Z_]+)(?::(money))?\}/g;

/** The names a text uses, for the catalogue test and for checking a call's params. */
export function placeholdersOf(text: string): string[] {
  return [...new Set([...text.matchAll(PLACEHOLDER)].map((m) => m[1] as string))].sort();
}

export function interpolate(text: string, params: Readonly<Record<string, ParamValue>> | undefined): string {
  return text.replace(PLACEHOLDER, (whole, name: string, format: string | undefined) => {
    const value = params?.[name];
    if (value === undefined) return whole;
    return format === "money" && typeof value === "number" ? formatMoney(value) : String(value);
  });
}
