/**
 * The checkout's plain statements keep using the indexes once their plans are cached. Each is sent
 * prepared by name, and after five runs PostgreSQL may keep one generic plan for every value: a plan
 * made without the values, from the statement's text alone. A condition the text leaves to a value —
 * `status = ANY($3)`, `$2 IS NULL OR livemode = $2` — is planned as if it matched a third of the table,
 * and on a table of a million intents that plan was a sequential scan of the whole table behind a
 * `LIMIT 1` (bench/growth.mjs: an intent list took 123 ms instead of 2). Here each statement is run
 * through its repository on tables of a few thousand rows, then its generic plan is asked for: no
 * sequential scan of a growing table may be in it. PostgreSQL only: the embedded database caches no plans.
 */
import { createRequire } from "node:module";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callbacks, intents, payments, type Database } from "../src/index.js";
import { databaseTargets } from "./support/databases.js";

const postgres = (await databaseTargets("mteja_plans")).find((target) => target.name === "postgres")!;
const growingTables = new Set(["payments", "payment_intents", "momo_callbacks"]);
const seeded = 5000;
const at = new Date("2026-11-29T08:00:00.000Z");
const open = ["requires_payment", "processing"];
/** The due-intent look a create answers beside the insert. */
const due = { from: ["requires_payment"], at };

interface Sent {
  name: string;
  text: string;
  values: unknown[];
}

type QueryMethod = (...args: unknown[]) => unknown;
const pgOfDb = createRequire(new URL("../package.json", import.meta.url))("pg") as { Client: { prototype: { query: QueryMethod } } };

describe.skipIf(postgres.skip)("the checkout's plain statements, as generic plans", () => {
  let db: Database;
  let drop: () => Promise<void>;
  let url: string;
  const sent: Sent[] = [];
  let recording = false;
  const original = pgOfDb.Client.prototype.query;

  beforeAll(async () => {
    // Before the pool opens: its clients bind the query method they were built with.
    pgOfDb.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
      const config = args[0] as { name?: string; text?: string; values?: unknown[] } | string;
      if (recording && typeof config === "object" && typeof config.name === "string") sent.push({ name: config.name, text: config.text!, values: config.values ?? [] });
      return original.apply(this, args);
    };
    const opened = await postgres.open();
    ({ db, drop } = opened);
    url = opened.url!;
    await db.migrate();
    const sql = db.unscoped("test");
    await sql.tenant.create({ data: { id: "shop-a", name: "A" } });
    const user = await sql.user.create({ data: { tenantId: "shop-a", email: "a@example.com" } });
    const ago = (g: string) => `timestamptz '2026-11-01T00:00:00Z' - (${g} || ' seconds')::interval`;
    await sql.$executeRawUnsafe(
      `INSERT INTO payment_intents (id, tenant_id, amount, reference, status, expires_at, created_at, updated_at)
       SELECT 'pi_seed_' || g, 'shop-a', 100, 'SEED-' || g, 'succeeded', ${ago("g")} + interval '1 day', ${ago("g")}, ${ago("g")}
         FROM generate_series(1, ${seeded}) g`,
    );
    await sql.$executeRawUnsafe(
      `INSERT INTO payments (id, tenant_id, user_id, phone, amount, reference, description, status, checkout_request_id, intent_id, created_at, updated_at)
       SELECT gen_random_uuid(), 'shop-a', $1::uuid, '254708374149', 100, 'SEED-' || g, 'seed', 'SUCCESS', 'ws_CO_seed_' || g, 'pi_seed_' || g, ${ago("g")}, ${ago("g")}
         FROM generate_series(1, ${seeded}) g`,
      user.id,
    );
    await sql.$executeRawUnsafe(
      `INSERT INTO momo_callbacks (id, kind, raw_body, received_at, outcome, correlation_id)
       SELECT gen_random_uuid(), 'stkpush', '{}', ${ago("g")}, 'applied', 'ws_CO_seed_' || g FROM generate_series(1, ${seeded}) g`,
    );
    for (const table of growingTables) await sql.$executeRawUnsafe(`ANALYZE ${table}`);
    recording = true;
    await runCheckoutStatements(user.id);
    recording = false;
  });
  afterAll(async () => {
    pgOfDb.Client.prototype.query = original;
    await drop?.();
  });

  /** Every plain statement of a checkout, through its repository, on clients of one mode and of both. */
  async function runCheckoutStatements(userId: string) {
    for (const [n, client] of [db.forTenant("shop-a", { livemode: true }), db.forTenant("shop-a")].entries()) {
      const id = `pi_new_${n}`;
      const reference = `NEW-${n}`;
      await intents.anyDue(client, { from: open, at });
      const newIntent = { id, tenantId: "shop-a", amount: 100, reference, description: null, userId: null, metadata: {}, idempotencyKey: null, requestHash: null, status: "requires_payment", expiresAt: new Date(at.getTime() + 60_000), createdAt: at };
      await intents.create(client, newIntent, due);
      await intents.findRowAndAnyDue(client, id, { from: open, at });
      const prompt = { tenantId: "shop-a", userId, livemode: true, phone: "254708374149", amount: 100, reference, description: "Payment", idempotencyKey: null, callbackTokenForm: "tenant", nextQueryAt: at, createdAt: at };
      const paying = await payments.createPromptForIntent(client, { ...prompt, id: crypto.randomUUID() }, { intentId: id, from: ["requires_payment"], to: "processing" });
      expect(paying?.intentId).toBe(id);
      const alone = await payments.createPrompt(client, { ...prompt, id: crypto.randomUUID() });
      expect(await payments.storePromptAck(client, { id: alone.id, checkoutRequestId: `ws_CO_new_${n}`, merchantRequestId: "m", at })).toMatchObject({ stored: true });
    }
    await callbacks.listHeld(db.unscoped("test"), { kind: "stkpush", correlationId: "ws_CO_seed_1", limit: 200 });
    await callbacks.listHeld(db.unscoped("test"), { kind: "stkpush", receivedSince: at, limit: 200 });
  }

  /** The scans of growing tables in the statement's generic plan (`plan_cache_mode = force_generic_plan`). */
  async function genericScans(statement: Sent): Promise<{ node: string; table: string }[]> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query("SET plan_cache_mode = force_generic_plan");
      await client.query(`PREPARE generic AS ${statement.text}`);
      const literal = (value: unknown) => (value === null ? "NULL" : client.escapeLiteral(value instanceof Date ? value.toISOString() : String(value)));
      // EXPLAIN of EXECUTE shows the plan the cache would run; nothing is executed.
      const answer = await client.query(`EXPLAIN (FORMAT JSON) EXECUTE generic(${statement.values.map(literal).join(", ")})`);
      const plan = (answer.rows[0] as { "QUERY PLAN": { Plan: PlanNode }[] })["QUERY PLAN"][0]!.Plan;
      return nodesOf(plan)
        .filter((node) => node["Relation Name"] !== undefined && growingTables.has(node["Relation Name"]))
        .map((node) => ({ node: node["Node Type"], table: node["Relation Name"]! }));
    } finally {
      await client.end();
    }
  }

  it("sends each of them prepared by name", () => {
    const tables = new Set(sent.flatMap((statement) => [...growingTables].filter((table) => statement.text.includes(table))));
    expect([...tables].sort()).toEqual([...growingTables].sort());
    expect(new Set(sent.map((statement) => statement.name)).size).toBeGreaterThanOrEqual(12);
  });

  it("plans none of them as a sequential scan of a growing table", async () => {
    const faults: string[] = [];
    const seen = new Set<string>();
    for (const statement of sent) {
      if (seen.has(statement.name)) continue;
      seen.add(statement.name);
      for (const scan of await genericScans(statement)) {
        if (scan.node === "Seq Scan") faults.push(`Seq Scan on ${scan.table}: ${statement.text.replace(/\s+/g, " ").slice(0, 200)}`);
      }
    }
    expect(faults).toEqual([]);
  });
});

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  Plans?: PlanNode[];
}

function nodesOf(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodesOf)];
}
