/**
 * The 47 counties of Kenya (Constitution of Kenya 2010, First Schedule) and the lookup that turns
 * what a customer typed into the canonical form stored and returned (docs/addresses.md).
 */
import data from "./counties.json" with { type: "json" };

export interface County {
  code: string;
  name: string;
  canonical: string;
}

export const counties: readonly County[] = data.counties.map(({ code, name, canonical }) => ({ code, name, canonical }));

/**
 * Case, apostrophes and the separators between words are not significant: "Murang'a", "muranga",
 * "Homa-Bay", "homa_bay" and "HOMA  BAY" all name one county.
 */
function lookupKey(value: string): string {
  return value
    .trim()
    .toLowerCase()
    .replace(/['\u2018\u2019`]/g, "")
    .replace(/[\s_-]+/g, " ");
}

const byKey: ReadonlyMap<string, string> = new Map(
  data.counties.flatMap((county) => [county.canonical, county.name, ...county.aliases].map((form) => [lookupKey(form), county.canonical] as const)),
);

/** The canonical form of a county as typed, or undefined when it names none of the 47. */
export function canonicalCounty(value: string): string | undefined {
  return byKey.get(lookupKey(value));
}
