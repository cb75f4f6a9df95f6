import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DomainError, toErrorEnvelope } from "../../../src/shared/errors.js";
import { kenyanPhoneField, oneLineString } from "../../../src/shared/fields.js";

const schema = z
  .object({
    name: oneLineString().min(1, "name is required").max(5, "name is too long"),
    email: z.email("email is not a valid email address"),
    url: z.url(),
    id: z.uuid(),
    count: z.number().min(2).max(9),
    tags: z.array(z.string()).min(1).max(2),
    kind: z.enum(["a", "b"]),
    phone: kenyanPhoneField,
    flag: z.boolean(),
  })
  .strict();

function detailsIn(locale: "en" | "sw", input: unknown) {
  const parsed = schema.safeParse(input);
  if (parsed.success) throw new Error("expected a failure");
  return (toErrorEnvelope(parsed.error, locale).body.error.details ?? []) as { path: string; message: string }[];
}

describe("input errors in Swahili", () => {
  it("writes each kind of zod issue from its bounds, with the field's own name", () => {
    const sw = detailsIn("sw", { name: "", email: "x", url: "nope", id: "1", count: 10, tags: [], kind: "c", phone: "123", extra: 1 });
    expect(sw).toEqual([
      { path: "name", message: "name inahitajika" },
      { path: "email", message: "email si anwani sahihi ya barua pepe" },
      { path: "url", message: "url si URL sahihi" },
      { path: "id", message: "id si kitambulisho sahihi" },
      { path: "count", message: "count isizidi 9" },
      { path: "tags", message: "tags lazima iwe na angalau vipengee 1" },
      { path: "kind", message: "kind lazima iwe mojawapo ya: a, b" },
      { path: "phone", message: "phone lazima iwe nambari ya simu ya mkononi ya Kenya (07…, 01…, 2547…, 2541… au +254…)" },
      { path: "flag", message: "flag inahitajika na lazima iwe ya aina boolean" },
      { path: "(body)", message: "sehemu hizi hazijulikani: extra" },
    ]);
  });

  it("covers lengths, lower bounds and control characters", () => {
    const sw = detailsIn("sw", { name: "abcdefg\u0000", email: "a@b.co", url: "https://x.example", id: "00000000-0000-4000-8000-000000000000", count: 1, tags: ["a", "b", "c"], kind: "a", phone: "0712345678", flag: true });
    expect(sw).toEqual([
      { path: "name", message: "name isiwe na herufi za udhibiti" },
      { path: "count", message: "count lazima iwe angalau 2" },
      { path: "tags", message: "tags isiwe na vipengee zaidi ya 2" },
    ]);
  });

  it("keeps the schema's own English messages in English", () => {
    const en = detailsIn("en", { name: "", email: "x", url: "https://x.example", id: "00000000-0000-4000-8000-000000000000", count: 3, tags: ["a"], kind: "a", phone: "0712345678", flag: true });
    expect(en).toEqual([
      { path: "name", message: "name is required" },
      { path: "email", message: "email is not a valid email address" },
    ]);
  });
});

describe("domain errors", () => {
  it("answer their code's message when none is given, their own otherwise, with params, in either language", () => {
    expect(toErrorEnvelope(new DomainError("NOT_FOUND"), "sw").body).toEqual({ success: false, message: "Haikupatikana.", error: { code: "NOT_FOUND" } });
    const full = new DomainError("VALIDATION_ERROR", { key: "limits.addresses", params: { max: 50 } }, { details: [{ path: "(body)", message: { key: "detail.addresses_full", params: { max: 50 } } }] });
    expect(full.message).toBe("You can keep at most 50 addresses; delete one to add another.");
    expect(toErrorEnvelope(full, "sw").body).toEqual({
      success: false,
      message: "Unaweza kuhifadhi anwani zisizozidi 50; tafadhali futa moja ili kuongeza nyingine.",
      error: { code: "VALIDATION_ERROR", details: [{ path: "(body)", message: "mteja anaweza kuwa na anwani zisizozidi 50" }] },
    });
    const provider = new DomainError("PAYMENT_PROVIDER_ERROR", undefined, { details: [{ errorCode: "404.001.03", errorMessage: "Invalid Access Token" }] });
    expect(toErrorEnvelope(provider, "sw").body.error.details).toEqual([{ errorCode: "404.001.03", errorMessage: "Invalid Access Token" }]);
  });
});
