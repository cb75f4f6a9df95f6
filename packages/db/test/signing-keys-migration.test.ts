/**
 * The signing-key migration on a database where two instances had each created a current key (the
 * race of earlier versions): the newest stays current, the others are retired with a "not after" time,
 * and from then on the database refuses a second current key.
 */
import { describe, expect, it } from "vitest";
import { plainSqlOf } from "./support/databases.js";
import { withDatabaseBefore } from "./support/migrations.js";

const migration = "20261122010000_signing_key_retirement";


const insertKey = (kid: string, createdAt: string) =>
  `INSERT INTO signing_keys (kid, algorithm, public_jwk, private_key_enc, created_at) VALUES ('${kid}', 'ES256', '{}', 'enc', '${createdAt}')`;

describe(`migration ${migration}`, () => {
  it("keeps the newest of several current keys, retires the others with a not-after time, then allows one current key only", async () => {
    await withDatabaseBefore(migration, async (db) => {
      await plainSqlOf(db).sql.exec(insertKey("older", "2026-01-01T00:00:00Z"));
      await plainSqlOf(db).sql.exec(insertKey("newer", "2026-01-01T00:00:01Z"));

      const report = await db.migrate();
      expect(report.applied).toContain(migration);
      const rows = await db.unscoped("test").signingKey.findMany({ orderBy: { createdAt: "asc" } });
      expect(rows.map((r) => [r.kid, r.retiredAt === null, r.notAfter === null])).toEqual([
        ["older", false, false],
        ["newer", true, true],
      ]);
      expect(rows[0]!.notAfter!.getTime() - rows[0]!.retiredAt!.getTime()).toBe(65 * 60 * 1000);

      await expect(plainSqlOf(db).sql.exec(insertKey("third", "2026-01-02T00:00:00Z"))).rejects.toThrow(/signing_keys_one_current_per_algorithm/);
      await expect(plainSqlOf(db).sql.exec(`UPDATE signing_keys SET not_after = NULL WHERE kid = 'older'`)).rejects.toThrow(/signing_keys_not_after_iff_retired/);
    });
  });
});
