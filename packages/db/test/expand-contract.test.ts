/**
 * Migrations are expand-then-contract (docs/deployment.md, "Rolling deploys and migrations"): during a
 * rolling deploy the previous release runs beside the new one on the migrated database, so a migration
 * this release adds may not drop or rename a table or a column the previous release's code uses
 * (prisma/previous-release.json). Dropping or renaming is a contract step: marked, and only for what the
 * previous release no longer uses. The fixture migrations show the check refusing.
 */
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
// @ts-expect-error a plain ES module: operators run it with node at each release
import { hasCommit, recordOf, recordPath } from "../scripts/previous-release.mjs";
import { checkMigration, destructiveStatements, splitStatements } from "./support/expand-contract.js";
import type { ReleaseRecord } from "./support/expand-contract.js";

const migrationsDir = new URL("../../../prisma/migrations/", import.meta.url);
const fixturesDir = new URL("./fixtures/migrations/", import.meta.url);
const previous = JSON.parse(readFileSync(recordPath as string, "utf8")) as ReleaseRecord;

function migrationsIn(dir: URL): { name: string; sql: string }[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => ({ name: entry.name, sql: readFileSync(new URL(`${entry.name}/migration.sql`, dir), "utf8") }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

describe("expand-then-contract migrations", () => {
  it("every migration since the previous release leaves what that release uses in place", () => {
    const added = migrationsIn(migrationsDir).filter((migration) => !previous.migrations.includes(migration.name));
    expect(added.length).toBeGreaterThan(0);
    expect(added.flatMap((migration) => checkMigration(migration.name, migration.sql, previous))).toEqual([]);
  });

  it("refuses the fixtures that drop or rename what the previous release uses, and allows a contract step", () => {
    const reasons = (m: { name: string; sql: string }) => checkMigration(m.name, m.sql, previous).map((r) => r.reason);
    const refused = Object.fromEntries(migrationsIn(fixturesDir).map((m) => [m.name, reasons(m)]));
    expect(refused).toEqual({
      "20990101000000_drop_users_name": [expect.stringMatching(/^drop column users\.name in a migration not marked/)],
      "20990101010000_contract_drops_a_used_column": [
        expect.stringMatching(/^drop column sessions\.user_agent, which the second release \(2026-11-25\) still uses/),
        expect.stringMatching(/^rename table api_keys, which the second release \(2026-11-25\) still uses/),
      ],
      "20990101020000_contract_drops_what_is_unused": [],
    });
  });

  it("reads drops and renames in every form PostgreSQL takes, and nothing else", () => {
    const sql = `
      -- DROP TABLE "users"; (a comment)
      /* ALTER TABLE "users" DROP COLUMN "email"; */
      CREATE FUNCTION f() RETURNS trigger AS $$ BEGIN DROP TABLE x; END; $$ LANGUAGE plpgsql;
      INSERT INTO notes (body) VALUES ('ALTER TABLE users DROP COLUMN email; it''s text');
      ALTER TABLE "users" ALTER COLUMN "email" DROP NOT NULL, DROP CONSTRAINT "users_email_key";
      ALTER TABLE ONLY public."Payments" DROP "Receipt", ADD COLUMN "x" INT, DROP COLUMN IF EXISTS y CASCADE;
      ALTER TABLE IF EXISTS sessions RENAME COLUMN ip TO client_ip;
      ALTER TABLE "sessions" RENAME CONSTRAINT "a" TO "b";
      ALTER TABLE addresses RENAME TO delivery_addresses;
      DROP TABLE IF EXISTS "a", public.b CASCADE;
      DROP INDEX "payments_status_idx";
    `;
    expect(splitStatements(sql)).toHaveLength(9);
    expect(destructiveStatements(sql).map(({ statement: _statement, ...found }) => found)).toEqual([
      { kind: "drop column", table: "Payments", column: "Receipt" },
      { kind: "drop column", table: "Payments", column: "y" },
      { kind: "rename column", table: "sessions", column: "ip" },
      { kind: "rename table", table: "addresses" },
      { kind: "drop table", table: "a" },
      { kind: "drop table", table: "b" },
    ]);
  });

  it.skipIf(!hasCommit(previous.commit))("the record is the previous release's schema, as its commit holds it", () => {
    expect(recordOf(previous.commit, previous.release)).toEqual(previous);
  });
});
