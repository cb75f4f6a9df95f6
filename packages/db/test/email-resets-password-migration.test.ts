/**
 * The email_resets_password migration on a database with accounts from before it: an address that came
 * from a first-email change (which a session that was not fresh could start, docs/email.md) and was not
 * replaced since resets no password until confirmed; every other address resets it as before; a change
 * link mailed before the migration counts as started on a session that was not fresh.
 */
import { describe, expect, it } from "vitest";
import { plainSqlOf } from "./support/databases.js";
import { rowId as id, withDatabaseBefore } from "./support/migrations.js";

const migration = "20261128160000_email_resets_password";


describe(`migration ${migration}`, () => {
  it("keeps only addresses from a first-email change, not replaced since, from resetting a password", async () => {
    await withDatabaseBefore(migration, async (db) => {
      await plainSqlOf(db).sql.exec(`INSERT INTO tenants (id, name) VALUES ('old-shop', 'Old shop')`);
      const users: Array<[number, string | null]> = [
        [1, "first@example.com"], // a phone-only account's first email
        [2, "changed@example.com"], // a first email, then changed (a change needs a fresh session)
        [3, "registered@example.com"], // given at registration
        [4, null], // a first email, then the account erased
      ];
      for (const [n, email] of users) {
        await plainSqlOf(db).sql.exec(`INSERT INTO users (id, tenant_id, email) VALUES ('${id(n)}', 'old-shop', ${email === null ? "NULL" : `'${email}'`})`);
      }
      const event = (n: number, user: number, first: boolean) =>
        plainSqlOf(db).sql.exec(
          `INSERT INTO security_events (id, tenant_id, user_id, type, details, created_at) VALUES ('${id(n)}', 'old-shop', '${id(user)}', 'email.changed', '{"first": ${first}, "sessions_ended": 0}', now())`,
        );
      await event(5, 1, true);
      await event(6, 2, true);
      await event(7, 2, false);
      await event(8, 4, true);
      await plainSqlOf(db).sql.exec(
        `INSERT INTO one_time_tokens (id, tenant_id, user_id, purpose, token_hash, email, expires_at) VALUES ('${id(9)}', 'old-shop', '${id(3)}', 'change_email', 'hash', 'next@example.com', now() + interval '1 day')`,
      );

      expect((await db.migrate()).applied).toContain(migration);
      const rows = await db.unscoped("test").user.findMany({ select: { id: true, emailResetsPassword: true }, orderBy: { id: "asc" } });
      expect(rows.map((row) => row.emailResetsPassword)).toEqual([false, true, true, true]);
      expect((await db.unscoped("test").oneTimeToken.findUniqueOrThrow({ where: { id: id(9) } })).fromFreshSession).toBe(false);
      // A user created later (registration, phone sign-up) starts with an address that resets the password.
      await plainSqlOf(db).sql.exec(`INSERT INTO users (id, tenant_id, email) VALUES ('00000000-0000-4000-8000-000000000010', 'old-shop', 'new@example.com')`);
      expect((await db.unscoped("test").user.findUniqueOrThrow({ where: { id: "00000000-0000-4000-8000-000000000010" } })).emailResetsPassword).toBe(true);
    });
  });
});
