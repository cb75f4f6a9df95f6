// Fast seeding for the benchmarks, in PostgreSQL itself (generate_series, one statement per table):
// - users and their sessions, for the flatness runs (MTEJA_BENCH_SEED_ROWS, `npm run bench -- --large`);
// - PENDING payments with Daraja ids, for the callback benchmark (each callback settles one).
import pg from "pg";

/** How many extra users (each with one live session) the /me and login benchmarks seed: MTEJA_BENCH_SEED_ROWS. */
export const seedRows = Number(process.env.MTEJA_BENCH_SEED_ROWS ?? 0);

async function withClient(url, fn) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * `rows` users of tenant "default" (`seed<n>@example.com`, the given password hash) and one live session
 * each, then ANALYZE so the planner sees the table it would see in production. Returns the seconds it took.
 */
export async function seedUsersAndSessions(url, rows, passwordHash = "$argon2id$v=19$m=19456,t=2,p=1$c2VlZHNlZWRzZWVkc2VlZA$0000000000000000000000000000000000000000000") {
  if (!rows) return 0;
  const started = performance.now();
  await withClient(url, async (client) => {
    await client.query(
      `INSERT INTO users (id, tenant_id, email, name, password_hash, created_at, updated_at)
       SELECT gen_random_uuid(), 'default', 'seed' || g || '@example.com', 'Seed user ' || g, $2, now(), now()
         FROM generate_series(1, $1::int) g`,
      [rows, passwordHash],
    );
    await client.query(
      `INSERT INTO sessions (id, tenant_id, user_id, created_at, last_refreshed_at, idle_expires_at, absolute_expires_at)
       SELECT gen_random_uuid(), tenant_id, id, now(), now(), now() + interval '30 days', now() + interval '90 days'
         FROM users WHERE email LIKE 'seed%@example.com'`,
    );
    await client.query("ANALYZE users");
    await client.query("ANALYZE sessions");
  });
  return (performance.now() - started) / 1000;
}

/**
 * `count` PENDING payments of `userId` (tenant "default", 100 KES each) whose prompts Daraja accepted
 * an hour ago: CheckoutRequestID `<prefix><n>`, MerchantRequestID `mr-<prefix><n>`, n = 1..count.
 */
export async function seedPendingPayments(url, { userId, prefix, count, amount = 100 }) {
  await withClient(url, (client) =>
    client.query(
      `INSERT INTO payments (id, tenant_id, user_id, phone, amount, reference, description, status, checkout_request_id, merchant_request_id, created_at, updated_at)
       SELECT gen_random_uuid(), 'default', $1::uuid, '254708374149', $4::int, 'BENCH', 'bench', 'PENDING', $2 || g, 'mr-' || $2 || g,
              now() - interval '1 hour', now() - interval '1 hour'
         FROM generate_series(1, $3::int) g`,
      [userId, prefix, count, amount],
    ),
  );
}

/**
 * The plans of the reads behind /me and behind a login for the bench user (`email`), with their
 * execution times: on a seeded database they must stay index look-ups (the flatness the large part
 * measures in requests/s, shown here without the machine's noise).
 */
export async function explainHotReads(url, email) {
  return withClient(url, async (client) => {
    const { rows } = await client.query("SELECT u.id, u.tenant_id, s.id AS session_id FROM users u JOIN sessions s ON s.user_id = u.id WHERE u.email = $1 LIMIT 1", [email]);
    const { id, tenant_id: tenantId, session_id: sessionId } = rows[0];
    const plan = async (sql, values) => {
      const lines = (await client.query(`EXPLAIN (ANALYZE, COSTS OFF) ${sql}`, values)).rows.map((r) => r["QUERY PLAN"]);
      const scans = lines.filter((l) => /Scan/.test(l)).map((l) => l.trim().replace(/\s+\(actual.*$/, ""));
      return { scans, executionMs: Number(/Execution Time: ([\d.]+)/.exec(lines.join("\n"))?.[1]) };
    };
    return {
      me: await plan(
        `SELECT u.id, u.name FROM users u WHERE u.id = $1 AND u.tenant_id = $2 AND EXISTS (SELECT 1 FROM sessions s
           WHERE s.id = $3 AND s.user_id = $1 AND s.tenant_id = $2 AND s.revoked_at IS NULL AND s.absolute_expires_at > now())`,
        [id, tenantId, sessionId],
      ),
      login: await plan("SELECT id, password_hash FROM users WHERE tenant_id = $1 AND email = $2", [tenantId, email]),
    };
  });
}
