import { describe, expect, it } from "vitest";
import { applyMergePatch } from "../../src/shared/merge-patch.js";

describe("JSON Merge Patch (RFC 7396)", () => {
  // RFC 7396 Appendix A, every example: [target, patch, result].
  const appendixA: Array<[unknown, unknown, unknown]> = [
    [{ a: "b" }, { a: "c" }, { a: "c" }],
    [{ a: "b" }, { b: "c" }, { a: "b", b: "c" }],
    [{ a: "b" }, { a: null }, {}],
    [{ a: "b", b: "c" }, { a: null }, { b: "c" }],
    [{ a: ["b"] }, { a: "c" }, { a: "c" }],
    [{ a: "c" }, { a: ["b"] }, { a: ["b"] }],
    [{ a: { b: "c" } }, { a: { b: "d", c: null } }, { a: { b: "d" } }],
    [{ a: [{ b: "c" }] }, { a: [1] }, { a: [1] }],
    [["a", "b"], ["c", "d"], ["c", "d"]],
    [{ a: "b" }, ["c"], ["c"]],
    [{ a: "foo" }, null, null],
    [{ a: "foo" }, "bar", "bar"],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: "b", c: null }, { a: "b" }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];

  it.each(appendixA)("applies %j + %j", (target, patch, result) => {
    expect(applyMergePatch(target, patch)).toEqual(result);
  });

  it("leaves the target unchanged (a new value is returned)", () => {
    const target = { momo: { shortcode: "600100", maxAmount: 10 } };
    const merged = applyMergePatch(target, { momo: { maxAmount: 20 } });
    expect(merged).toEqual({ momo: { shortcode: "600100", maxAmount: 20 } });
    expect(target).toEqual({ momo: { shortcode: "600100", maxAmount: 10 } });
  });
});
