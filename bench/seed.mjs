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

/**
 * The lists' rows for the growth benchmark (bench/growth.mjs), numbered `first`..`last` of tenant
 * "default", one a second going back from `newest` (row `first` at `newest`): settled STK payments of
 * `userId`, succeeded payment intents, `payment.succeeded` webhook events and sign-in security events of
 * `userId`, then ANALYZE. Returns the seconds it took.
 */
export async function seedListRows(url, { userId, first, last, newest }) {
  const started = performance.now();
  const at = `($3::timestamptz - ((g - $1) || ' seconds')::interval)`;
  const range = [first, last, newest];
  await withClient(url, async (client) => {
    await client.query(
      `INSERT INTO payments (id, tenant_id, user_id, phone, amount, reference, description, status, settled_at, created_at, updated_at)
       SELECT gen_random_uuid(), 'default', $4::uuid, '254708374149', 100, 'ORDER-' || g, 'bench', 'SUCCESS', ${at}, ${at}, ${at}
         FROM generate_series($1::int, $2::int) g`,
      [...range, userId],
    );
    await client.query(
      `INSERT INTO payment_intents (id, tenant_id, amount, reference, status, expires_at, created_at, updated_at)
       SELECT 'pi_' || replace(gen_random_uuid()::text, '-', ''), 'default', 100, 'INTENT-' || g, 'succeeded',
              ${at} + interval '1 day', ${at}, ${at}
         FROM generate_series($1::int, $2::int) g`,
      range,
    );
    await client.query(
      `INSERT INTO webhook_events (id, tenant_id, type, body, created_at)
       SELECT e.id, 'default', 'payment.succeeded',
              json_build_object('id', e.id, 'type', 'payment.succeeded', 'created_at', e.at, 'tenant_id', 'default',
                                'data', json_build_object('payment', json_build_object('reference', 'ORDER-' || e.g)))::text, e.at
         FROM (SELECT g, 'evt_' || replace(gen_random_uuid()::text, '-', '') AS id, ${at} AS at
                 FROM generate_series($1::int, $2::int) g) e`,
      range,
    );
    await client.query(
      `INSERT INTO security_events (id, tenant_id, user_id, type, ip, user_agent, details, created_at)
       SELECT gen_random_uuid(), 'default', $4::uuid, 'sign_in.succeeded', '127.0.0.1', 'bench', '{"method":"password"}'::jsonb, ${at}
         FROM generate_series($1::int, $2::int) g`,
      [...range, userId],
    );
    for (const table of ["payments", "payment_intents", "webhook_events", "security_events"]) await client.query(`ANALYZE ${table}`);
  });
  return (performance.now() - started) / 1000;
}

/** The id and created_at of the `n`th newest row of a list's table for tenant "default" (a deep page's cursor). */
export async function nthNewest(url, table, n) {
  return withClient(url, async (client) => {
    const { rows } = await client.query(
      `SELECT id::text AS id, created_at FROM ${table} WHERE tenant_id = 'default' ORDER BY created_at DESC, id DESC OFFSET $1 LIMIT 1`,
      [n - 1],
    );
    return rows[0];
  });
}

/** VACUUM ANALYZE of `tables` (a list as SQL takes it): what autovacuum would do later, done before a run. */
export async function vacuumAnalyze(url, tables) {
  await withClient(url, (client) => client.query(`VACUUM ANALYZE ${tables}`));
}
