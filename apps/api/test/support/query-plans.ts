/**
 * The plans of the statements a request sends (docs/performance.md, "Growth"): every statement the
 * service's database clients send while recording, with its values, then each run again under
 * `EXPLAIN (ANALYZE, FORMAT JSON)` with sequential scans and sorts turned off, so the planner takes an
 * index whenever one can serve the statement, as it would on a table of a million rows. What the plan
 * says then is what the indexes allow: a `Seq Scan` means no index serves the statement; a scan reading
 * many more rows than the page it answers means no index enters the table where the page starts.
 */
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import type { TestApp } from "./app.js";

export interface RecordedStatement {
  text: string;
  values: unknown[];
  /** The embedded database that ran it (a PostgreSQL statement is explained on a connection of its own). */
  pglite?: PGlite | undefined;
}

/** One node of a JSON plan, with the fields read here. */
export interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Actual Rows": number;
  "Actual Loops": number;
  "Rows Removed by Filter"?: number;
  "Rows Removed by Index Recheck"?: number;
  Plans?: PlanNode[];
}

type QueryMethod = (...args: unknown[]) => unknown;

/** What is used here of the embedded database (PGlite, reached through the db package: the API does not depend on it). */
interface PGlite {
  exec(sql: string): Promise<unknown>;
  query<T>(sql: string, values?: unknown[]): Promise<{ rows: T[] }>;
}

const dbRequire = createRequire(new URL("../../../../packages/db/package.json", import.meta.url));
const pgCopies = [...new Set([dbRequire("pg"), createRequire(dbRequire.resolve("@prisma/adapter-pg"))("pg")])] as { Client: { prototype: { query: QueryMethod } } }[];
// The module the db package imports (its ESM build: require would load a second copy, the CJS one).
const pgliteModule = pathToFileURL(dbRequire.resolve("@electric-sql/pglite").replace(/\.cjs$/, ".js")).href;
const pglitePrototype = ((await import(pgliteModule)) as { PGlite: { prototype: { query: QueryMethod } } }).PGlite.prototype;

/** Installs the recording for the suite; `start()` begins one, `stop()` ends it and answers what was sent. */
export function recordStatements(): { start: () => void; stop: () => RecordedStatement[] } {
  let seen: RecordedStatement[] | undefined;
  const pgOriginals = pgCopies.map((copy) => copy.Client.prototype.query);
  const pgliteOriginal = pglitePrototype.query;
  beforeAll(() => {
    pgCopies.forEach((copy, i) => {
      const original = pgOriginals[i]!;
      copy.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
        const config = args[0] as string | { text?: string; values?: unknown[] } | undefined;
        const text = typeof config === "string" ? config : config?.text;
        const values = typeof config === "string" ? (Array.isArray(args[1]) ? args[1] : []) : (config?.values ?? (Array.isArray(args[1]) ? args[1] : []));
        if (text) seen?.push({ text: String(text), values: values as unknown[] });
        return original.apply(this, args);
      };
    });
    pglitePrototype.query = function (this: PGlite, ...args: unknown[]) {
      if (typeof args[0] === "string") seen?.push({ text: args[0], values: (args[1] as unknown[] | undefined) ?? [], pglite: this });
      return pgliteOriginal.apply(this, args);
    };
  });
  afterAll(() => {
    pgCopies.forEach((copy, i) => (copy.Client.prototype.query = pgOriginals[i]!));
    pglitePrototype.query = pgliteOriginal;
  });
  return {
    start: () => void (seen = []),
    stop: () => {
      const recorded = seen ?? [];
      seen = undefined;
      return recorded;
    },
  };
}

const plannerSettings = ["enable_seqscan", "enable_sort"];

/** The statement's plan as it ran again (EXPLAIN ANALYZE), sequential scans and sorts turned off. */
export async function explainAnalyze(t: TestApp, statement: RecordedStatement): Promise<PlanNode> {
  const explain = `EXPLAIN (ANALYZE, FORMAT JSON) ${statement.text}`;
  let answer: unknown;
  if (statement.pglite) {
    // The embedded database has one session, shared with the service: the settings are put back at once.
    const db = statement.pglite;
    await db.exec(plannerSettings.map((name) => `SET ${name} = off;`).join(" "));
    try {
      answer = (await db.query<Record<string, unknown>>(explain, statement.values)).rows[0]?.["QUERY PLAN"];
    } finally {
      await db.exec(plannerSettings.map((name) => `RESET ${name};`).join(" "));
    }
  } else {
    const client = new pg.Client({ connectionString: t.database.url });
    await client.connect();
    try {
      for (const name of plannerSettings) await client.query(`SET ${name} = off`);
      answer = (await client.query(explain, statement.values)).rows[0]?.["QUERY PLAN"];
    } finally {
      await client.end();
    }
  }
  const parsed = (typeof answer === "string" ? JSON.parse(answer) : answer) as { Plan: PlanNode }[];
  return parsed[0]!.Plan;
}

/** Every node of a plan, the root first. */
export function nodesOf(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodesOf)];
}

/** The rows a scan node looked at: those it answered and those it threw away, over all its loops. */
export function rowsRead(node: PlanNode): number {
  const perLoop = node["Actual Rows"] + (node["Rows Removed by Filter"] ?? 0) + (node["Rows Removed by Index Recheck"] ?? 0);
  return perLoop * node["Actual Loops"];
}

/** The LIMIT of a statement, from its text or its values (Prisma sends it as a parameter); undefined without one. */
export function limitOf(statement: RecordedStatement): number | undefined {
  const match = /\bLIMIT\s+(?:\$(\d+)|(\d+))/i.exec(statement.text);
  if (!match) return undefined;
  return match[1] ? Number(statement.values[Number(match[1]) - 1]) : Number(match[2]);
}
