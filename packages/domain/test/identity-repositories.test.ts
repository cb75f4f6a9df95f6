import { describe, expect, it } from "vitest";
import { sourceFiles, srcDir } from "./support/source-files.js";

/**
 * The identity tables (users, sessions and refresh tokens, one-time tokens, recovery codes, phone codes,
 * API keys, security events, signing keys) are read and written only through their repositories in
 * packages/db (`users.findById(ctx.db, id)`, `sessions.find(…)`): the domain holds no SQL naming them and
 * no Prisma model call on them, in any area, so each table's queries are in one file (queries-in-db.test.ts
 * holds the moved areas to no queries at all).
 */
const models = [
  ...["user", "session", "refreshToken", "signingKey", "oneTimeToken"],
  ...["recoveryCode", "apiKey", "phoneCode", "securityEvent"],
];
const tables = models.map((model) => `${model.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)}s`);
const modelCall = new RegExp(`\\.(${models.join("|")})\\.\\w+\\(`);
const sqlNaming = new RegExp(`\\b(FROM|INTO|UPDATE|JOIN|TABLE)\\s+(${tables.join("|")})\\b`);

function directUses(files: { name: string; lines: string[] }[]): string[] {
  const found: string[] = [];
  for (const { name, lines } of files) {
    lines.forEach((line, index) => {
      if (modelCall.test(line) || sqlNaming.test(line)) found.push(`${name}:${index + 1}: ${line.trim()}`);
    });
  }
  return found;
}

describe("the identity tables", () => {
  it("are reached from the domain only through their repositories", () => {
    expect(directUses(sourceFiles(srcDir))).toEqual([]);
  });

  it("would notice a model call or SQL naming one of them", () => {
    const samples = [
      "const user = await ctx.db.user.findFirst({ where: { id } });",
      "await tx.refreshToken.update({ where: { id }, data });",
      "await tx.$executeRaw`INSERT INTO security_events (id) VALUES (${id})`;",
      "SELECT s.last_used_at FROM sessions s WHERE s.id = $1",
    ];
    expect(directUses([{ name: "auth/sample.ts", lines: samples }])).toHaveLength(samples.length);
    const throughRepositories = ["const id = found.user.id;", "await users.findById(ctx.db, id);"];
    expect(directUses([{ name: "auth/sample.ts", lines: throughRepositories }])).toEqual([]);
  });
});
