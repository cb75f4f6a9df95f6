#!/usr/bin/env node
// What a transaction costs in this process's CPU, four ways, on PostgreSQL in one run: Prisma's
// interactive transaction with five raw statements, with five model reads, with five model writes, and
// the same five statements on a pooled pg client (BEGIN … COMMIT by hand). Why callbacks apply in a
// plain transaction (docs/performance.md, "Callback ingestion"): the cost is the interactive
// transaction itself, not whether its statements are raw or model queries.
//   node bench/transactions.mjs [--transactions 3000] [--concurrency 20] [--rounds 2]
import { createScratchDatabase, openDatabase } from "@mteja/db";
import pg from "pg";
import { args } from "./args.mjs";

const transactions = Number(args.transactions ?? 3000);
const concurrency = Number(args.concurrency ?? 20);
const rounds = Number(args.rounds ?? 2);
const adminUrl = process.env.MTEJA_BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const scratch = await createScratchDatabase(adminUrl, "mteja_bench");
const db = await openDatabase({ url: scratch.url });
await db.migrate();
const pool = new pg.Pool({ connectionString: scratch.url, max: 10 });
const prisma = db.unscoped("test");
const id = "00000000-0000-0000-0000-000000000000"; // no such payment: every statement is one index probe

const byHand = "pg client, BEGIN + 5 statements + COMMIT"; // what the others are measured against
const variants = {
  "Prisma $transaction, 5 × $queryRaw": () =>
    db.transaction(prisma, async (tx) => {
      for (let i = 0; i < 5; i++) await tx.$queryRaw`SELECT id FROM payments WHERE id = ${id}::uuid`;
    }),
  "Prisma $transaction, 5 × findFirst": () =>
    db.transaction(prisma, async (tx) => {
      for (let i = 0; i < 5; i++) await tx.payment.findFirst({ where: { id }, select: { id: true } });
    }),
  "Prisma $transaction, 5 × updateMany": () =>
    db.transaction(prisma, async (tx) => {
      for (let i = 0; i < 5; i++) await tx.payment.updateMany({ where: { id }, data: { status: "SUCCESS", updatedAt: new Date() } });
    }),
  [byHand]: async () => {
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      for (let i = 0; i < 5; i++) await client.query("SELECT id FROM payments WHERE id = $1::uuid", [id]);
      await client.query("COMMIT");
    } finally {
      client.release();
    }
  },
};

/** CPU time of this process per transaction, and transactions/s, at `concurrency` in flight. */
async function measure(fn) {
  for (let i = 0; i < 300; i++) await fn(); // warm-up
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => { while (next++ < transactions) await fn(); }));
  const cpu = process.cpuUsage(cpuBefore);
  return { cpuMs: (cpu.user + cpu.system) / 1000 / transactions, perSecond: transactions / ((performance.now() - started) / 1000) };
}

const results = {};
for (let round = 1; round <= rounds; round++) {
  for (const [name, fn] of Object.entries(variants)) {
    const r = await measure(fn);
    (results[name] ??= []).push(r);
    console.log(`round ${round}: ${name}: ${r.cpuMs.toFixed(3)} ms CPU per transaction, ${r.perSecond.toFixed(0)}/s`);
  }
}
const plain = results[byHand].reduce((s, r) => s + r.cpuMs, 0);
console.log(`\nCPU per transaction against the pg client's (${transactions} transactions, ${concurrency} in flight, ${rounds} rounds):`);
for (const [name, rs] of Object.entries(results)) console.log(`  ${name}: ${(rs.reduce((s, r) => s + r.cpuMs, 0) / rs.length).toFixed(3)} ms (${(rs.reduce((s, r) => s + r.cpuMs, 0) / plain).toFixed(1)}×)`);

await pool.end();
await db.close();
await scratch.drop();
