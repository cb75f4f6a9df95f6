#!/usr/bin/env node
// The database read behind GET /me, four ways, on PostgreSQL in one run: Prisma's relation filter,
// Prisma's $queryRaw, and the same SQL through pg. It is why packages/db/src/repositories/users.ts
// (findProfileInSession) and sessions.ts (find) use plain SQL (docs/performance.md).
//   node bench/queries.mjs [--ops 3000] [--concurrency 10]
import { createScratchDatabase, openDatabase } from "@mteja/db";
// The plain SQL the repositories reach behind a door (not exported by @mteja/db: the bench reads its build).
import { plainOf } from "../packages/db/dist/plain-access.js";
import pg from "pg";
import { args } from "./args.mjs";

const ops = Number(args.ops ?? 3000);
const concurrency = Number(args.concurrency ?? 10);
const adminUrl = process.env.MTEJA_BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const scratch = await createScratchDatabase(adminUrl, "mteja_bench");
const url = new URL(scratch.url);

const db = await openDatabase({ url: url.toString() });
await db.migrate();
await db.unscoped("test").tenant.create({ data: { id: "default", name: "Bench" } });
const user = await db.unscoped("test").user.create({ data: { tenantId: "default", email: "q@example.com", name: "Q", passwordHash: "x" } });
const far = new Date(Date.now() + 1e10);
const session = await db.unscoped("test").session.create({ data: { tenantId: "default", userId: user.id, idleExpiresAt: far, absoluteExpiresAt: far } });
const plainSql = plainOf(db.forTenant("default")).sql;
const pool = new pg.Pool({ connectionString: url.toString(), max: 10 });
const now = new Date();
const sql = `SELECT u.id, u.name, u.email, u.phone, u.avatar_url, u.email_verified, u.otp_enabled, u.role, u.preferences
  FROM users u WHERE u.id = $1 AND u.tenant_id = $2 AND EXISTS (SELECT 1 FROM sessions s WHERE s.id = $3 AND s.user_id = $1
  AND s.tenant_id = $2 AND s.revoked_at IS NULL AND s.absolute_expires_at > $4)`;
const select = { id: true, name: true, email: true, phone: true, avatarUrl: true, emailVerified: true, otpEnabled: true, role: true, preferences: true };

const variants = {
  "prisma findFirst with relation filter": () =>
    db.unscoped("test").user.findFirst({ where: { id: user.id, tenantId: "default", sessions: { some: { id: session.id, revokedAt: null, absoluteExpiresAt: { gt: now } } } }, select }),
  "prisma $queryRawUnsafe (same SQL)": () => db.unscoped("test").$queryRawUnsafe(sql, user.id, "default", session.id, now),
  "plain SQL of a door (pg, what Mteja uses)": () => plainSql.query(sql, [user.id, "default", session.id, now]),
  "pg pool.query (the hand-written route)": () => pool.query(sql, [user.id, "default", session.id, now]),
};

async function measure(fn) {
  for (let i = 0; i < 300; i++) await fn();
  let done = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => { while (done++ < ops) await fn(); }));
  return (ops / (performance.now() - started)) * 1000;
}

for (let round = 1; round <= 2; round++) {
  for (const [name, fn] of Object.entries(variants)) console.log(`round ${round}  ${name.padEnd(42)} ${(await measure(fn)).toFixed(0)} reads/s`);
}
await pool.end();
await db.close();
await scratch.drop();
