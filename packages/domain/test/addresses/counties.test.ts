import { describe, expect, it } from "vitest";
import { canonicalCounty, counties } from "../../src/addresses/counties.js";

describe("county canonicalisation", () => {
  it("knows the 47 counties, each with a unique code and canonical form", () => {
    expect(counties).toHaveLength(47);
    expect(new Set(counties.map((c) => c.code)).size).toBe(47);
    expect(new Set(counties.map((c) => c.canonical)).size).toBe(47);
    for (const county of counties) expect(canonicalCounty(county.name)).toBe(county.canonical);
  });

  it("ignores case, apostrophes and the separators between words", () => {
    for (const typed of ["Murang'a", "muranga", "MURANG’A", "  murang`a "]) expect(canonicalCounty(typed)).toBe("murang'a");
    for (const typed of ["Homa Bay", "homa-bay", "homa_bay", "HOMA  BAY"]) expect(canonicalCounty(typed)).toBe("homa bay");
    for (const typed of ["Taita-Taveta", "taita taveta", "Taita_Taveta"]) expect(canonicalCounty(typed)).toBe("taita-taveta");
    expect(canonicalCounty("Nairobi")).toBe("nairobi");
  });

  it("names no county for anything else", () => {
    for (const typed of ["", "   ", "Kampala", "Nairobi County", "nairob", "Mombasa!"]) expect(canonicalCounty(typed)).toBeUndefined();
  });
});
