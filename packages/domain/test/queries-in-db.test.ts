import { describe, expect, it } from "vitest";
import { sourceFiles, srcDir } from "./support/source-files.js";

/**
 * Every read and write of a table goes through a function of @mteja/db's repositories, named for what it
 * does (issue 29, docs/architecture.md): the domain holds no SQL text and calls no Prisma model. Opening
 * a transaction (`Database.transaction`, database-doors.test.ts) is still the domain's. Checked in every area.
 */
const areas = [
  ...["addresses/", "api-keys/", "auth/", "data-rights/", "profile/", "retention/", "security-events/"],
  ...["shared/", "sms/", "tenants/", "webhooks/", "payments/", "intents/", "trpc.ts", "context.ts"],
];

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
  { name: "raw SQL", pattern: /\$(queryRaw|executeRaw)(Unsafe)?\s*(<[^`(]*>)?\s*[`(]/ },
  { name: "an SQL fragment", pattern: /\bPrisma\.(sql|raw|join|empty)\b/ },
  { name: "SQL text", pattern: /\b(SELECT|INSERT INTO|DELETE FROM|FOR UPDATE|FOR NO KEY UPDATE)\b|\bUPDATE \w+\s+SET\b/ },
  // A model reached through a client (`ctx.db.user.findFirst(`, `tx.payment.update(`), not any `.delete(`.
  {
    name: "a Prisma model call",
    pattern: new RegExp(`\\b(db|tx|unscoped|prisma|client)\\.[a-z][A-Za-z]*\\.(${prismaOperations})\\(`),
  },
];

function queriesIn(dir: string): string[] {
  const found: string[] = [];
  for (const { name, lines } of sourceFiles(dir)) {
    if (!areas.some((area) => name.startsWith(area))) continue;
    lines.forEach((line, index) => {
      // Comments may name SQL (why a sweep locks its rows); only code is checked.
      if (/^\s*(\*|\/\/|\/\*)/.test(line)) return;
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
    const allowed = [
      "await webhooks.findEvent(ctx.db, id)",
      "cache.delete(id)",
      "parsed.searchParams.delete(TOKEN_PARAMETER)",
      'sql: Pick<RawSql, "$queryRaw">', "await ctx.deps.db.transaction(ctx.db, async (tx) => work(tx))",
    ];
    for (const line of allowed) expect([line, forbidden.some(({ pattern }) => pattern.test(line))]).toEqual([line, false]);
  });
});
