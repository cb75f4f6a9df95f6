import { describe, expect, it } from "vitest";
import { sourceFiles, srcDir } from "./support/source-files.js";

/**
 * Every read and write of a table goes through a function of @mteja/db's repositories, named for what it
 * does (issue 29, docs/architecture.md): the domain holds no SQL text and calls no Prisma model. Opening
 * a transaction (`$transaction`) is still the domain's. Checked in the areas whose queries have moved so far.
 */
const areas = ["addresses/", "data-rights/", "retention/", "shared/", "sms/", "tenants/", "webhooks/"];

const prismaOperations = [
  "findUnique",
  "findUniqueOrThrow",
  "findFirst",
  "findFirstOrThrow",
  "findMany",
  "create",
  "createMany",
  "createManyAndReturn",
  "update",
  "updateMany",
  "updateManyAndReturn",
  "upsert",
  "delete",
  "deleteMany",
  "count",
  "aggregate",
  "groupBy",
].join("|");

const forbidden: { name: string; pattern: RegExp }[] = [
  { name: "raw SQL", pattern: /\$(queryRaw|executeRaw)(Unsafe)?\b/ },
  { name: "an SQL fragment", pattern: /\bPrisma\.(sql|raw|join|empty)\b/ },
  { name: "SQL text", pattern: /\b(SELECT|INSERT INTO|DELETE FROM|FOR UPDATE|FOR NO KEY UPDATE)\b|\bUPDATE \w+\s+SET\b/ },
  { name: "a Prisma model call", pattern: new RegExp(`\\.[a-z][A-Za-z]*\\.(${prismaOperations})\\(`) },
];

function queriesIn(dir: string): string[] {
  const found: string[] = [];
  for (const { name, lines } of sourceFiles(dir)) {
    if (!areas.some((area) => name.startsWith(area))) continue;
    lines.forEach((line, index) => {
      for (const { name: what, pattern } of forbidden) if (pattern.test(line)) found.push(`${name}:${index + 1} has ${what}`);
    });
  }
  return found;
}

describe("the domain's queries", () => {
  it("are all in @mteja/db's repositories, for the areas moved there", () => {
    expect(queriesIn(srcDir)).toEqual([]);
  });

  it("would notice one", () => {
    const samples = [
      "await tx.$queryRaw`SELECT 1`",
      "const where = Prisma.sql`id = ${id}`",
      "`SELECT id FROM users WHERE id = ${id} FOR UPDATE`",
      "await ctx.db.webhookEvent.findMany({ where })",
    ];
    samples.forEach((sample, index) => expect([sample, forbidden[index]!.pattern.test(sample)]).toEqual([sample, true]));
    const allowed = ["await webhooks.findEvent(ctx.db, id)", "cache.delete(id)", "await ctx.db.$transaction(async (tx) => work(tx))"];
    for (const line of allowed) expect([line, forbidden.some(({ pattern }) => pattern.test(line))]).toEqual([line, false]);
  });
});
