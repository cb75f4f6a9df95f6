/**
 * The list operations stay index reads as the tables grow (docs/performance.md, "Growth"). Each list is
 * read through HTTP — its first page and a page after a cursor deep into it — on a few hundred rows
 * seeded with SQL, and every statement it sent is run again under EXPLAIN ANALYZE with sequential scans
 * and sorts turned off: no statement may scan a growing table sequentially (no index serves it), and no
 * page may read more than about twice its size from one (the index must start the read where the page
 * starts; a read that walks from the newest row down to the cursor grows with the table).
 */
import { randomUUID } from "node:crypto";
import { describe, expect } from "vitest";
import { adminKey, registerUser, RestClient, type TestApp } from "./support/app.js";
import { skipThisTarget } from "./support/database.js";
import { it } from "./support/fixture.js";
import { explainAnalyze, limitOf, nodesOf, recordStatements, rowsRead, type RecordedStatement } from "./support/query-plans.js";
import { createApiKey } from "./support/webhook-shop.js";

/** The tables that grow with a shop's use, whose reads must go through an index. */
const growingTables = new Set([
  "payments",
  "payment_intents",
  "webhook_events",
  "webhook_attempts",
  "webhook_deliveries",
  "security_events",
  "payouts",
  "refunds",
  "sessions",
  "users",
]);
const seeded = 300;
/** The report's page size: a day of `seeded` payments takes many pages. */
const reportBatch = 10;
const reportDay = "2026-03-10";

it.override({ appEnv: { REPORT_BATCH_SIZE: String(reportBatch), RATE_LIMITS: "off" } });

/** `seeded` rows of each growing list of the tenant, a second apart, the newest an hour ago. */
async function seed(t: TestApp, customerId: string) {
  const db = t.deps.db.unscoped("test");
  const at = (g: string) => `timestamptz '${reportDay}T12:00:00Z' - (${g} || ' seconds')::interval`;
  await db.$executeRawUnsafe(
    `INSERT INTO payments (id, tenant_id, user_id, phone, amount, reference, description, status, checkout_request_id,
       mpesa_receipt, settled_at, created_at, updated_at)
     SELECT gen_random_uuid(), 'default', $1::uuid, '254708374149', 100, 'ORDER-' || g, 'seed', 'SUCCESS', 'ws_CO_seed_' || g,
       'SEED' || g, ${at("g")}, ${at("g")}, ${at("g")}
       FROM generate_series(1, ${seeded}) g`,
    customerId,
  );
  await db.$executeRawUnsafe(
    `INSERT INTO payments (id, tenant_id, phone, amount, reference, description, status, channel, c2b_match, trans_id, created_at, updated_at)
     SELECT gen_random_uuid(), 'default', '254708374149', 100, 'C2B-' || g, 'seed', 'SUCCESS', 'c2b', 'unmatched', 'C2BSEED' || g,
       ${at("g")}, ${at("g")}
       FROM generate_series(1, ${seeded}) g`,
  );
  await db.$executeRawUnsafe(
    `INSERT INTO payment_intents (id, tenant_id, amount, reference, status, expires_at, created_at, updated_at)
     SELECT 'pi_' || replace(gen_random_uuid()::text, '-', ''), 'default', 100, 'INTENT-' || g, 'succeeded',
       ${at("g")} + interval '1 day', ${at("g")}, ${at("g")}
       FROM generate_series(1, ${seeded}) g`,
  );
  await db.$executeRawUnsafe(
    `INSERT INTO webhook_events (id, tenant_id, type, body, created_at)
     SELECT 'evt_' || replace(gen_random_uuid()::text, '-', ''), 'default', 'payment.succeeded',
       json_build_object('id', 'evt_seed_' || g, 'type', 'payment.succeeded', 'created_at', ${at("g")}, 'tenant_id', 'default', 'data', '{}'::json)::text,
       ${at("g")}
       FROM generate_series(1, ${seeded}) g`,
  );
  await db.$executeRawUnsafe(
    `INSERT INTO security_events (id, tenant_id, user_id, type, details, created_at)
     SELECT gen_random_uuid(), 'default', $1::uuid, 'sign_in.succeeded', '{}'::jsonb, ${at("g")}
       FROM generate_series(1, ${seeded}) g`,
    customerId,
  );
  for (const table of growingTables) await db.$executeRawUnsafe(`ANALYZE ${table}`);
}

describe.skipIf(skipThisTarget)("the list operations' plans", () => {
  let t: TestApp;
  let rest: RestClient;
  const record = recordStatements();
  const tokens: Record<string, string> = {};

  it.beforeAll(async ({ app }) => {
    t = app;
    rest = new RestClient(t.url);
    const customer = await registerUser(rest);
    const admin = await registerUser(rest);
    const promoted = await rest.request("PATCH", `/api/v1/admin/users/${admin.id}`, { body: { role: "admin" }, headers: { authorization: `Bearer ${adminKey}` } });
    expect(promoted.status, JSON.stringify(promoted.body)).toBe(200);
    const signedIn = await rest.post("/api/v1/auth/login", { email: admin.email, password: admin.password });
    tokens.customer = customer.accessToken;
    tokens.admin = signedIn.body.data.access_token as string;
    tokens.apiKey = await createApiKey(t.url, "default");
    tokens.operator = adminKey;
    await seed(t, customer.id);
    // Seeding on the embedded database takes most of a minute on a busy machine.
  }, 180_000);

  /** The statements of a list's first page (`firstLimit` rows) and of the page of 10 after its cursor. */
  async function statementsOf(path: string, token: string, firstLimit = 100): Promise<RecordedStatement[]> {
    const join = path.includes("?") ? "&" : "?";
    record.start();
    const first = await rest.get(`${path}${join}limit=${firstLimit}`, token);
    const firstStatements = record.stop();
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const cursor = (first.body.data.next_cursor ?? first.body.data.nextCursor) as string | null;
    expect(cursor, `${path}: a cursor after the first page`).toBeTruthy();
    record.start();
    const next = await rest.get(`${path}${join}limit=10&cursor=${encodeURIComponent(cursor!)}`, token);
    const nextStatements = record.stop();
    expect(next.status, JSON.stringify(next.body)).toBe(200);
    return [...firstStatements, ...nextStatements];
  }

  /** What is wrong with the plans of the statements that read a growing table: empty when nothing is. */
  async function faultsOf(statements: RecordedStatement[]): Promise<string[]> {
    const faults: string[] = [];
    const reads = statements.filter((s) => /^\s*(SELECT|WITH)\b/i.test(s.text) && [...growingTables].some((table) => s.text.includes(`"${table}"`) || new RegExp(`\\b${table}\\b`).test(s.text)));
    expect(reads.length, "the list read a growing table").toBeGreaterThan(0);
    for (const statement of reads) {
      const plan = await explainAnalyze(t, statement);
      const scans = nodesOf(plan).filter((node) => node["Relation Name"] !== undefined && growingTables.has(node["Relation Name"]));
      const limit = limitOf(statement);
      const oneLine = statement.text.replace(/\s+/g, " ").slice(0, 160);
      for (const scan of scans) {
        if (scan["Node Type"] === "Seq Scan") faults.push(`Seq Scan on ${scan["Relation Name"]}: ${oneLine}`);
        else if (limit !== undefined && rowsRead(scan) > 2 * limit + 2) {
          faults.push(`${scan["Node Type"]} on ${scan["Relation Name"]} (${scan["Index Name"] ?? "-"}) read ${rowsRead(scan)} rows for a page of ${limit}: ${oneLine}`);
        }
      }
    }
    return faults;
  }

  it("tells a missing index: a list of every shop's payments to one phone would scan the table", async () => {
    const db = t.deps.db.unscoped("test");
    record.start();
    await db.payment.findMany({ where: { phone: "254708374149" }, orderBy: [{ createdAt: "desc" }], take: 10 });
    const faults = await faultsOf(record.stop());
    expect(faults.join("\n")).toMatch(/^Seq Scan on payments/);
  });

  it("tells a page that reads from the newest row down to its cursor", async () => {
    const db = t.deps.db.unscoped("test");
    const oldest = await db.payment.findFirst({ where: { tenantId: "default", channel: "c2b" }, orderBy: [{ createdAt: "asc" }] });
    record.start();
    // The keyset condition alone: no bound the index can start at.
    await db.payment.findMany({
      where: { tenantId: "default", channel: "c2b", c2bMatch: "unmatched", OR: [{ createdAt: { lt: oldest!.createdAt } }, { createdAt: oldest!.createdAt, id: { lt: oldest!.id } }] },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: 10,
    });
    const faults = await faultsOf(record.stop());
    expect(faults.join("\n")).toMatch(/read \d+ rows for a page of 10/);
  });

  const lists: { what: string; path: string; as: string }[] = [
    { what: "the customer's payments", path: "/api/momo/payments", as: "customer" },
    { what: "the shop's payments (an admin)", path: "/api/momo/payments", as: "admin" },
    { what: "the payment intents", path: "/api/v1/payment-intents", as: "apiKey" },
    { what: "the webhook events", path: "/api/v1/webhook-events", as: "apiKey" },
    { what: "the C2B payments", path: "/api/v1/c2b-payments", as: "apiKey" },
    { what: "the customer's security events", path: "/api/v1/auth/me/security-events", as: "customer" },
    { what: "the operator's audit of the shop", path: "/api/v1/admin/audit?tenant=default", as: "operator" },
    { what: "the operator's audit of every shop", path: "/api/v1/admin/audit", as: "operator" },
  ];

  for (const list of lists) {
    it(`reads ${list.what} through indexes, a page at a time`, async () => {
      const faults = await faultsOf(await statementsOf(list.path, tokens[list.as]!));
      expect(faults).toEqual([]);
    });
  }

  it("reads the daily report through indexes, a page at a time", async () => {
    record.start();
    const report = await fetch(`${t.url}/api/v1/reports/daily?date=${reportDay}`, { headers: { authorization: `Bearer ${tokens.apiKey}` } });
    const csv = await report.text();
    const statements = record.stop();
    expect(report.status).toBe(200);
    expect(csv.trim().split("\n").length).toBeGreaterThan(seeded);
    expect(await faultsOf(statements)).toEqual([]);
  });
});
