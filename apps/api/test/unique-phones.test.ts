/**
 * The phone numbers tests make up never repeat within a process: a number texted by one test and
 * made up again by another counts two texts where the second test expects one (a CI failure of
 * sms-budgets.test.ts). Nothing database-specific: once, on PostgreSQL where it answers.
 */
import { describe, expect, it } from "vitest";
import { skipDatabaseAgnostic } from "./support/database.js";
import { uniquePhone } from "./support/sms.js";

describe.skipIf(skipDatabaseAgnostic)("uniquePhone", () => {
  it("gives 100,000 different numbers in a row, each a mobile number as a customer types it", () => {
    const phones = Array.from({ length: 100_000 }, () => uniquePhone());
    expect(new Set(phones.map((phone) => phone.local)).size).toBe(phones.length);
    for (const phone of phones.slice(0, 100)) {
      expect(phone.local).toMatch(/^07\d{8}$/);
      expect(phone.international).toBe(`+254${phone.local.slice(1)}`);
      expect(phone.stored).toBe(`254${phone.local.slice(1)}`);
    }
  });
});
