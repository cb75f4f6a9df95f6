/**
 * Prepared statements of the plain pg paths (src/raw-sql.ts createStatementNames): a text gets one
 * stable name, different texts different names, and no more than `max` texts are ever named, so no
 * connection holds an unbounded number of prepared statements; `max` 0 names none.
 */
import { describe, expect, it } from "vitest";
import { createStatementNames } from "../src/raw-sql.js";

describe("statement names", () => {
  it("names a text the same way every time, and different texts differently", () => {
    const nameOf = createStatementNames();
    const lock = "SELECT id FROM payments WHERE checkout_request_id = $1 FOR UPDATE";
    const name = nameOf(lock);
    expect(name).toMatch(/^mteja_[\w-]{22}$/);
    expect(nameOf(`${lock}`)).toBe(name);
    expect(nameOf("SELECT id FROM payouts WHERE conversation_id = $1 FOR UPDATE")).not.toBe(name);
    // Another pool names the same text the same way (the name is the text's hash).
    expect(createStatementNames()(lock)).toBe(name);
  });

  it("tells apart texts of the same length", () => {
    const nameOf = createStatementNames();
    const texts = ["SELECT a FROM t WHERE id = $1", "SELECT b FROM t WHERE id = $1", "SELECT c FROM t WHERE id = $1"];
    const names = texts.map(nameOf);
    expect(new Set(names).size).toBe(3);
    // Asked again, built anew (not the same string object), each gets its own name back.
    expect(texts.map((text) => nameOf(text.split("").join("")))).toEqual(names);
  });

  it("names at most max texts; the rest run unnamed, the named keep their names", () => {
    const nameOf = createStatementNames(3);
    const named = ["a", "b", "c"].map((column) => nameOf(`SELECT ${column} FROM t WHERE id = $1`));
    expect(named.every((name) => typeof name === "string")).toBe(true);
    expect(nameOf("SELECT d FROM t WHERE id = $1")).toBeUndefined();
    expect(nameOf("SELECT b FROM t WHERE id = $1")).toBe(named[1]);
  });

  it("names nothing with max 0", () => {
    expect(createStatementNames(0)("SELECT 1 WHERE $1::int = 1")).toBeUndefined();
  });
});
